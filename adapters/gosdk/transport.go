package gosdk

import (
	"context"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Transport wraps t (mcp.StdioTransport, mcp.IOTransport, an in-memory
// transport, …) so that params.task of tools/call reaches the adapter.
// Serve it with Connect or Run, which also let the connection carry task
// status notifications, for which the SDK has no API.
func (a *Adapter) Transport(t mcp.Transport) mcp.Transport {
	return &transport{inner: t}
}

// Connect connects the adapter's server over t, wrapped with Transport,
// and returns the session, like mcp.Server.Connect.
func (a *Adapter) Connect(ctx context.Context, t mcp.Transport, opts *mcp.ServerSessionOptions) (*mcp.ServerSession, error) {
	wt := &transport{inner: t}
	ss, err := a.server.Connect(ctx, wt, opts)
	if err != nil {
		return nil, err
	}
	if wt.conn != nil {
		st := a.state(ss)
		st.conn.Store(wt.conn)
		// The connection writes straight to the peer: its standalone
		// stream is always open.
		st.streamOpened()
	}
	return ss, nil
}

// Run serves the adapter's server over t until the client disconnects or
// ctx is done, like mcp.Server.Run.
func (a *Adapter) Run(ctx context.Context, t mcp.Transport) error {
	ss, err := a.Connect(ctx, t, nil)
	if err != nil {
		return err
	}
	done := make(chan error, 1)
	go func() { done <- ss.Wait() }()
	select {
	case <-ctx.Done():
		_ = ss.Close()
		<-done
		return ctx.Err()
	case err := <-done:
		return err
	}
}

// transport wraps a Transport's connection.
type transport struct {
	inner mcp.Transport
	conn  *conn
}

// Connect connects the inner transport and wraps its connection.
func (t *transport) Connect(ctx context.Context) (mcp.Connection, error) {
	c, err := t.inner.Connect(ctx)
	if err != nil {
		return nil, err
	}
	t.conn = &conn{Connection: c}
	return t.conn, nil
}

// SupportsProtocolVersion passes the inner transport's answer on.
func (t *transport) SupportsProtocolVersion(v string) bool {
	if p, ok := t.inner.(mcp.ProtocolVersionSupporter); ok {
		return p.SupportsProtocolVersion(v)
	}
	return true
}

// conn rewrites tools/call requests as they are read.
type conn struct {
	mcp.Connection
}

// Read reads the next message, moving a tools/call's params.task where
// the adapter finds it.
func (c *conn) Read(ctx context.Context) (jsonrpc.Message, error) {
	msg, err := c.Connection.Read(ctx)
	if err != nil {
		return msg, err
	}
	if req, ok := msg.(*jsonrpc.Request); ok && req.Method == "tools/call" {
		if out, changed := carryInParams(req.Params); changed {
			req.Params = out
		}
	}
	return msg, nil
}
