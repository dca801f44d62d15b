package server

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/mcptasks/mcptasks/tasks"
	"github.com/mcptasks/mcptasks/tasks/protocol"
	"github.com/mcptasks/mcptasks/tasks/wire"
)

// ServeStdio serves one client over newline-delimited JSON-RPC: messages
// are read from in and written to out, one per line. The connection is a
// single session whose tasks belong to it. Quick requests are answered in
// order; tools/call and tasks/result run concurrently, so a blocked
// tasks/result never holds up other requests. It returns when in ends
// (nil) or ctx is done, after in-flight requests have finished.
func (s *Server) ServeStdio(ctx context.Context, in io.Reader, out io.Writer) error {
	sess := newSession("")
	sess.pinned = true
	owner, err := tasks.ResolveOwner(tasks.Identity{SessionID: sess.id}, s.allowAnonymous)
	if err != nil {
		return err
	}
	sess.owner = owner
	s.addSession(sess)
	defer s.dropSession(sess.id)

	w := &lineWriter{w: out}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			select {
			case <-sess.ctx.Done():
				return
			case <-ctx.Done():
				return
			case <-sess.wake:
				for _, msg := range sess.takeAll() {
					if w.write(msg) != nil {
						return
					}
				}
			}
		}
	})

	lines := make(chan []byte)
	readErr := make(chan error, 1)
	go func() {
		readErr <- readLines(in, s.maxBody, lines, w, ctx.Done())
	}()
	var reqs sync.WaitGroup
	defer func() {
		sess.close()
		reqs.Wait()
		cancel()
		wg.Wait()
	}()
	for {
		var line []byte
		select {
		case <-ctx.Done():
			return ctx.Err()
		case err := <-readErr:
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		case line = <-lines:
		}
		msg, k, err := decode(line)
		if err != nil {
			var de *decodeError
			if errors.As(err, &de) {
				_ = w.write(appendError(nil, de.id, de.err))
			}
			continue
		}
		if s.modernOnly && k == kindRequest && !isModernRequest(k, msg) {
			// Notifications go on as ever (notifications/cancelled ends
			// a 2026-07-28 request too); a request of an earlier revision
			// is refused.
			_ = w.write(appendError(nil, msg.ID, legacyRefusal(k, msg)))
			continue
		}
		switch k {
		case kindNotification:
			s.onNotification(sess, msg)
		case kindResponse:
			if err := s.core.Respond(sess.owner, msg.ID, msg.Result, msg.Error); err != nil {
				s.log.Warn("stdio: response answers no pending request", "id", string(msg.ID))
			}
		case kindRequest:
			if isModernRequest(k, msg) {
				owner := sess.owner
				serve := func() {
					if resp, _ := s.dispatchModern(ctx, sess.ident, owner, msg, w, sess.track); resp != nil {
						_ = w.write(resp)
					}
				}
				if protocol.ModernLongRunning(msg.Method) {
					reqs.Go(serve)
				} else {
					serve()
				}
				continue
			}
			c := &call{ctx: ctx, sess: sess, id: msg.ID, method: msg.Method, params: msg.Params, out: w}
			if !protocol.LongRunning(msg.Method) {
				if resp := s.dispatch(c); resp != nil {
					_ = w.write(resp)
				}
				continue
			}
			reqs.Go(func() {
				if resp := s.dispatch(c); resp != nil {
					_ = w.write(resp)
				}
			})
		}
	}
}

// readLines splits in into lines of at most limit bytes and sends them on
// lines. An over-long line is answered with an error and skipped.
func readLines(in io.Reader, limit int64, lines chan<- []byte, w *lineWriter, done <-chan struct{}) error {
	br := bufio.NewReaderSize(in, 64<<10)
	for {
		var line []byte
		tooLong := false
		for {
			chunk, isPrefix, err := br.ReadLine()
			if err != nil {
				return err
			}
			if !tooLong {
				if int64(len(line)+len(chunk)) > limit {
					tooLong, line = true, nil
				} else {
					line = append(line, chunk...)
				}
			}
			if !isPrefix {
				break
			}
		}
		if tooLong {
			_ = w.write(appendError(nil, nil, rpcErr(wire.CodeInvalidRequest, fmt.Sprintf("message too large: the limit is %d bytes", limit))))
			continue
		}
		if len(line) == 0 {
			continue
		}
		select {
		case lines <- line:
		case <-done:
			return io.EOF
		}
	}
}

// lineWriter writes whole messages, one per line, from many goroutines.
type lineWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lineWriter) write(msg []byte) error {
	msg = oneLine(msg)
	buf := make([]byte, 0, len(msg)+1)
	buf = append(append(buf, msg...), '\n')
	l.mu.Lock()
	defer l.mu.Unlock()
	_, err := l.w.Write(buf)
	return err
}

// send makes lineWriter the sender of stdio requests.
func (l *lineWriter) send(msg []byte) error { return l.write(msg) }
