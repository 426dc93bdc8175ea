package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/pgbrain/pgbrain/internal/events"
	"github.com/pgbrain/pgbrain/internal/scrub"
)

// DefaultMaxFrameBytes is the largest stdio frame (one line) the server
// reads; a longer one is refused with -32600 and skipped.
const DefaultMaxFrameBytes = 4 << 20

// DefaultGrace is how long the server keeps answering calls it already
// received after stdin closes or a signal arrives.
const DefaultGrace = 5 * time.Second

// StdioTransport is newline-delimited JSON-RPC over a reader and a writer
// that survives what the SDK's own stdio transport does not: every
// malformed frame gets the JSON-RPC error the spec prescribes (id null) and
// the session goes on, and when input ends (EOF, or Stop on a signal) every
// request already read is answered before the connection closes, or after
// Grace gets an error answer saying the server stopped.
type StdioTransport struct {
	In            io.Reader
	Out           io.Writer
	MaxFrameBytes int           // 0 means DefaultMaxFrameBytes
	Grace         time.Duration // 0 means DefaultGrace

	mu   sync.Mutex
	conn *stdioConn
	stop bool
}

// Connect implements mcp.Transport; it is called once per transport.
func (t *StdioTransport) Connect(context.Context) (mcp.Connection, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.conn != nil {
		return nil, errors.New("mcpserver: StdioTransport connected twice")
	}
	max := t.MaxFrameBytes
	if max <= 0 {
		max = DefaultMaxFrameBytes
	}
	grace := t.Grace
	if grace <= 0 {
		grace = DefaultGrace
	}
	c := &stdioConn{
		out:      t.Out,
		max:      max,
		grace:    grace,
		incoming: make(chan jsonrpc.Message),
		inputEnd: make(chan struct{}),
		closed:   make(chan struct{}),
		pending:  map[jsonrpc.ID]int{},
		answered: make(chan struct{}, 1),
	}
	t.conn = c
	go c.readLoop(t.In)
	if t.stop {
		c.endInput()
	}
	return c, nil
}

// Stop ends input as if the client had closed stdin: calls already read
// are answered within Grace, then the connection closes. Run calls it when
// its context is cancelled (SIGINT, SIGTERM).
func (t *StdioTransport) Stop() {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.stop = true
	if t.conn != nil {
		t.conn.endInput()
	}
}

type stdioConn struct {
	out   io.Writer
	max   int
	grace time.Duration

	incoming chan jsonrpc.Message
	inputEnd chan struct{} // closed when no more input will be read
	endOnce  sync.Once
	closed   chan struct{}
	close1   sync.Once

	writeMu  sync.Mutex
	pending  map[jsonrpc.ID]int // requests read and not yet answered, by id
	answered chan struct{}      // signalled when pending shrinks
}

func (c *stdioConn) SessionID() string { return "" }

func (c *stdioConn) endInput() { c.endOnce.Do(func() { close(c.inputEnd) }) }

func (c *stdioConn) Close() error {
	c.close1.Do(func() { close(c.closed) })
	c.endInput()
	return nil
}

// readLoop splits input into frames and hands valid messages to Read.
func (c *stdioConn) readLoop(in io.Reader) {
	defer c.endInput()
	r := bufio.NewReaderSize(in, 64<<10)
	for {
		frame, tooLong, err := readFrame(r, c.max)
		if len(bytes.TrimSpace(frame)) > 0 || tooLong {
			var msg jsonrpc.Message
			var rerr *jsonrpc.Error
			var id jsonrpc.ID
			if tooLong {
				rerr = &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest,
					Message: fmt.Sprintf("frame longer than %d bytes; this server refuses larger messages", c.max)}
			} else {
				msg, id, rerr = CheckFrame(frame)
			}
			if rerr != nil {
				c.writeErr(id, rerr)
			} else if !c.deliver(msg) {
				return
			}
		}
		if err != nil {
			return // io.EOF: the client hung up; anything else ends input too
		}
		select {
		case <-c.inputEnd:
			return
		default:
		}
	}
}

// deliver passes msg to Read, recording requests so that shutdown knows
// what is still owed an answer. It reports false once input has ended.
func (c *stdioConn) deliver(msg jsonrpc.Message) bool {
	if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
		c.writeMu.Lock()
		c.pending[req.ID]++
		c.writeMu.Unlock()
	}
	select {
	case c.incoming <- msg:
		return true
	case <-c.inputEnd:
		// Never handed over: it will not be answered by the SDK.
		if req, ok := msg.(*jsonrpc.Request); ok && req.IsCall() {
			c.writeErr(req.ID, shutdownError(0))
		}
		return false
	case <-c.closed:
		return false
	}
}

// readFrame reads one line of at most max bytes (without the newline). A
// longer line is consumed up to its newline and reported as tooLong.
func readFrame(r *bufio.Reader, max int) (frame []byte, tooLong bool, err error) {
	var buf []byte
	for {
		chunk, err := r.ReadSlice('\n')
		if !tooLong {
			if len(buf)+len(chunk) > max+1 { // +1: the newline itself
				tooLong, buf = true, nil
			} else {
				buf = append(buf, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return bytes.TrimRight(buf, "\r\n"), tooLong, err
	}
}

// Read returns the next message. After input ends it waits until every
// request read so far is answered, or Grace passes (the rest then get an
// error answer), and returns io.EOF.
func (c *stdioConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case msg := <-c.incoming:
		return msg, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-c.closed:
		return nil, io.EOF
	case <-c.inputEnd:
	}
	deadline := time.NewTimer(c.grace)
	defer deadline.Stop()
	for {
		c.writeMu.Lock()
		n := len(c.pending)
		c.writeMu.Unlock()
		if n == 0 {
			return nil, io.EOF
		}
		select {
		case <-c.answered:
		case <-deadline.C:
			c.writeMu.Lock()
			var ids []jsonrpc.ID
			for id, n := range c.pending {
				for range n {
					ids = append(ids, id)
				}
			}
			c.writeMu.Unlock()
			for _, id := range ids {
				c.writeErr(id, shutdownError(c.grace))
			}
			return nil, io.EOF
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-c.closed:
			return nil, io.EOF
		}
	}
}

func shutdownError(grace time.Duration) *jsonrpc.Error {
	msg := "the server is shutting down and did not start this request; send it again after reconnecting"
	if grace > 0 {
		msg = fmt.Sprintf("the server is shutting down and the request did not finish within the %v grace period; it was cancelled", grace)
	}
	return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: msg}
}

// Write sends one message. A response to a request already answered (by
// the shutdown path) is dropped, so no id is answered twice.
func (c *stdioConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	select {
	case <-c.closed:
		return io.ErrClosedPipe
	default:
	}
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return fmt.Errorf("encoding a message: %w", err)
	}
	if resp, ok := msg.(*jsonrpc.Response); ok && resp.Error != nil {
		data = scrubErrorFrame(data)
	}
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	if resp, ok := msg.(*jsonrpc.Response); ok && resp.ID.IsValid() {
		if c.pending[resp.ID] == 0 {
			return nil
		}
		c.unpend(resp.ID)
	}
	_, err = c.out.Write(append(data, '\n'))
	return err
}

// unpend records one answer to id; the caller holds writeMu.
func (c *stdioConn) unpend(id jsonrpc.ID) {
	switch n := c.pending[id]; {
	case n > 1:
		c.pending[id] = n - 1
	case n == 1:
		delete(c.pending, id)
	default:
		return
	}
	c.signal()
}

func (c *stdioConn) signal() {
	select {
	case c.answered <- struct{}{}:
	default:
	}
}

// scrubErrorFrame scrubs the message and data of an encoded JSON-RPC error
// answer: the SDK's own errors quote what the client sent ("unknown tool
// %q", a resource's uri), and clients keep transcripts. A frame that does
// not decode as expected is returned as it was.
func scrubErrorFrame(data []byte) []byte {
	if !bytes.Contains(data, []byte(`"error"`)) {
		return data // a result or a notification: nothing of the SDK's own to scrub
	}
	var frame map[string]json.RawMessage
	if json.Unmarshal(data, &frame) != nil {
		return data
	}
	var e map[string]any
	if json.Unmarshal(frame["error"], &e) != nil || e == nil {
		return data
	}
	if m, ok := e["message"].(string); ok {
		e["message"] = scrub.Message(m)
	}
	if d, ok := e["data"]; ok {
		e["data"] = events.Redact(map[string]any{"data": d})["data"]
	}
	raw, err := json.Marshal(e)
	if err != nil {
		return data
	}
	frame["error"] = raw
	out, err := json.Marshal(frame)
	if err != nil {
		return data
	}
	return out
}

// writeErr answers id (null when unknown) with a JSON-RPC error.
func (c *stdioConn) writeErr(id jsonrpc.ID, e *jsonrpc.Error) {
	// Encoded here rather than by the SDK, which leaves out a null id; the
	// spec requires "id": null when the request's id could not be read.
	data, err := json.Marshal(struct {
		JSONRPC string         `json:"jsonrpc"`
		ID      any            `json:"id"`
		Error   *jsonrpc.Error `json:"error"`
	}{"2.0", id.Raw(), e})
	if err != nil {
		return
	}
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	if id.IsValid() {
		c.unpend(id)
	}
	_, _ = c.out.Write(append(data, '\n'))
}

// CheckFrame validates one frame as a single JSON-RPC 2.0 message. It
// returns the message, or the error to answer with and the id to answer
// (the null id unless the frame's own id could be read).
func CheckFrame(frame []byte) (jsonrpc.Message, jsonrpc.ID, *jsonrpc.Error) {
	invalid := func(id jsonrpc.ID, msg string) (jsonrpc.Message, jsonrpc.ID, *jsonrpc.Error) {
		return nil, id, &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: msg}
	}
	if !utf8.Valid(frame) || !json.Valid(frame) {
		return nil, jsonrpc.ID{}, &jsonrpc.Error{Code: jsonrpc.CodeParseError,
			Message: "parse error: the line is not one JSON value (each line must hold exactly one JSON-RPC message)"}
	}
	trimmed := bytes.TrimSpace(frame)
	switch trimmed[0] {
	case '{':
	case '[':
		return invalid(jsonrpc.ID{}, "invalid request: JSON-RPC batches are not supported; send one message per line")
	default:
		return invalid(jsonrpc.ID{}, "invalid request: a message must be a JSON object")
	}
	var w struct {
		JSONRPC *string         `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Method  json.RawMessage `json:"method"`
		Result  json.RawMessage `json:"result"`
		Error   json.RawMessage `json:"error"`
	}
	if err := json.Unmarshal(trimmed, &w); err != nil {
		return invalid(jsonrpc.ID{}, "invalid request: "+err.Error())
	}
	id, idOK := parseID(w.ID)
	if !idOK {
		return invalid(jsonrpc.ID{}, "invalid request: id must be a string or an integer")
	}
	if w.JSONRPC == nil || *w.JSONRPC != "2.0" {
		return invalid(id, `invalid request: "jsonrpc" must be "2.0"`)
	}
	if w.Method != nil {
		var m string
		if err := json.Unmarshal(w.Method, &m); err != nil || m == "" {
			return invalid(id, `invalid request: "method" must be a non-empty string`)
		}
		if w.ID != nil && !id.IsValid() {
			return invalid(id, "invalid request: id must not be null")
		}
	} else if !id.IsValid() || (w.Result == nil && w.Error == nil) {
		return invalid(id, `invalid request: a message needs "method" (a request) or an id with "result" or "error" (a response)`)
	}
	msg, err := jsonrpc.DecodeMessage(trimmed)
	if err != nil {
		return invalid(id, "invalid request: "+err.Error())
	}
	return msg, id, nil
}

// parseID reads a JSON-RPC id: absent or null (the zero ID), a string, or
// an integer that fits in int64. Anything else is not an id.
func parseID(raw json.RawMessage) (jsonrpc.ID, bool) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return jsonrpc.ID{}, true
	}
	switch raw[0] {
	case '"':
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return jsonrpc.ID{}, false
		}
		id, err := jsonrpc.MakeID(s)
		return id, err == nil
	case '-', '0', '1', '2', '3', '4', '5', '6', '7', '8', '9':
		// Integers only: the SDK keeps ids as int64, so a fraction or an
		// exponent would come back as a different id.
		var n json.Number
		if json.Unmarshal(raw, &n) != nil {
			return jsonrpc.ID{}, false
		}
		i, err := n.Int64()
		if err != nil {
			return jsonrpc.ID{}, false
		}
		id, err := jsonrpc.MakeID(float64(i))
		return id, err == nil
	}
	return jsonrpc.ID{}, false
}
