package mcpserver_test

import (
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/pgbrain/pgbrain/internal/mcpserver"
)

// FuzzCheckFrame: any line is either one JSON-RPC 2.0 message or a -32700
// / -32600 error, never a panic, and an accepted message re-encodes to JSON.
func FuzzCheckFrame(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":"x","result":{}}`,
		`[{"jsonrpc":"2.0","id":1,"method":"ping"}]`,
		`{"jsonrpc":"1.0","id":1,"method":"ping"}`,
		`{"jsonrpc":"2.0","id":{},"method":"ping"}`,
		`{"jsonrpc":"2.0","id":1e3,"method":"ping"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, frame []byte) {
		msg, _, rerr := mcpserver.CheckFrame(frame)
		if rerr != nil {
			if rerr.Code != jsonrpc.CodeParseError && rerr.Code != jsonrpc.CodeInvalidRequest {
				t.Fatalf("code %d for %q", rerr.Code, frame)
			}
			if msg != nil {
				t.Fatalf("both a message and an error for %q", frame)
			}
			return
		}
		data, err := jsonrpc.EncodeMessage(msg)
		if err != nil || !json.Valid(data) {
			t.Fatalf("accepted %q but cannot re-encode it: %v", frame, err)
		}
	})
}
