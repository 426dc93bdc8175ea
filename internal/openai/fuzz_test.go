package openai

import (
	"strings"
	"testing"
)

// FuzzDecodeReplies feeds arbitrary server replies to the three decoders of
// server output: none may panic, errors name the client, and accepted
// embeddings have exactly one vector per input of the brain's dimension.
func FuzzDecodeReplies(f *testing.F) {
	f.Add([]byte(`{"choices":[{"message":{"role":"assistant","content":"ok"}}]}`), 400)
	f.Add([]byte(`{"data":[{"index":1,"embedding":[1,2]},{"index":0,"embedding":[3,4]}]}`), 200)
	f.Add([]byte(`{"error":{"message":"bad","type":"x","code":7}}`), 429)
	f.Add([]byte(`{"choices":[{"message":{"content":null,"refusal":"no"}}]}`), 500)
	chat, err := NewChat(ChatConfig{BaseURL: "http://localhost:1"})
	if err != nil {
		f.Fatal(err)
	}
	emb, err := New(Config{BaseURL: "http://localhost:1", Dim: 2})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, data []byte, status int) {
		if _, err := chat.decode(data); err != nil && !strings.HasPrefix(err.Error(), "chat model:") {
			t.Errorf("chat decode error does not name the chat model: %v", err)
		}
		vecs, err := emb.decode(data, 2)
		if err != nil && !strings.HasPrefix(err.Error(), "openai embedder:") {
			t.Errorf("embedding decode error does not name the embedder: %v", err)
		}
		if err == nil {
			if len(vecs) != 2 || len(vecs[0]) != 2 || len(vecs[1]) != 2 {
				t.Errorf("accepted %v for 2 inputs of dimension 2", vecs)
			}
		}
		if e := parseAPIError(status, data); e.Message == "" || e.StatusCode != status {
			t.Errorf("parseAPIError(%d, %q) = %+v", status, data, e)
		}
	})
}
