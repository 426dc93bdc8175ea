package tail

import "bytes"

// maxLineBytes bounds the memory held for one line; a longer line is
// discarded and counted as malformed.
const maxLineBytes = 4 << 20

// splitter frames a byte stream into lines, holding a trailing partial line
// until its newline arrives.
type splitter struct {
	buf      []byte
	max      int
	overflow bool // discarding an over-long line up to its newline
}

// feed splits p into lines (without the newline) and passes each to emit.
// ok is false for a line that was discarded for being too long. The line
// slice is only valid during the call.
func (s *splitter) feed(p []byte, emit func(line []byte, ok bool) error) error {
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			s.hold(p)
			return nil
		}
		chunk := p[:i]
		p = p[i+1:]
		if s.overflow {
			s.overflow = false
			if err := emit(nil, false); err != nil {
				return err
			}
			continue
		}
		line := chunk
		if len(s.buf) > 0 {
			s.buf = append(s.buf, chunk...)
			line = s.buf
		}
		if len(line) > s.max {
			s.buf = s.buf[:0]
			if err := emit(nil, false); err != nil {
				return err
			}
			continue
		}
		err := emit(line, true)
		s.buf = s.buf[:0]
		if err != nil {
			return err
		}
	}
	return nil
}

func (s *splitter) hold(p []byte) {
	if s.overflow {
		return
	}
	if len(s.buf)+len(p) > s.max {
		s.buf = s.buf[:0]
		s.overflow = true
		return
	}
	s.buf = append(s.buf, p...)
}

// reset forgets any partial line and reports whether there was one.
func (s *splitter) reset() bool {
	had := len(s.buf) > 0 || s.overflow
	s.buf = s.buf[:0]
	s.overflow = false
	return had
}
