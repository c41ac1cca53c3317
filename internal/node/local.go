package node

import (
	"context"
	"errors"
	"net"
	"os"
)

// Local is a node running in this process, for the demo and benchmarks.
type Local struct {
	*Node
	// Addr is the API's listening address.
	Addr    string
	errc    chan error
	cancel  context.CancelFunc
	tempDir string
}

// StartLocal builds a node from cfg (in a temporary data directory, removed
// by Stop, when cfg.Data is empty), serves its API on listen, and returns
// once its sequencer has started.
func StartLocal(ctx context.Context, cfg Config, o Options, listen string) (*Local, error) {
	l := &Local{errc: make(chan error, 1)}
	if cfg.Data == "" {
		d, err := os.MkdirTemp("", "ordo-")
		if err != nil {
			return nil, err
		}
		cfg.Data, l.tempDir = d, d
	}
	n, err := Build(ctx, cfg, o)
	if err != nil {
		os.RemoveAll(l.tempDir)
		return nil, err
	}
	l.Node = n
	ln, err := net.Listen("tcp", listen)
	if err != nil {
		return nil, errors.Join(err, l.release())
	}
	l.Addr = ln.Addr().String()
	runCtx, cancel := context.WithCancel(ctx)
	l.cancel = cancel
	go func() { l.errc <- n.Serve(runCtx, ln) }()
	select {
	case <-n.Sequencer.Started():
		return l, nil
	case err := <-l.errc:
		cancel()
		return nil, errors.Join(errors.New("node stopped while starting"), err, l.release())
	}
}

// Stopped delivers the error the node stopped with, if it stops before Stop.
func (l *Local) Stopped() <-chan error { return l.errc }

// Stop stops the node, waits for it and releases it.
func (l *Local) Stop() error {
	l.cancel()
	err := <-l.errc
	return errors.Join(err, l.release())
}

func (l *Local) release() error {
	err := l.Close()
	if l.tempDir != "" {
		os.RemoveAll(l.tempDir)
	}
	return err
}
