package node

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"time"
)

// Run serves the API on Listen and runs the sequencer (and the in-process
// devchain) until ctx ends.
func (n *Node) Run(ctx context.Context) error {
	ln, err := net.Listen("tcp", n.Config.Listen)
	if err != nil {
		return fmt.Errorf("listen: %w", err)
	}
	return n.Serve(ctx, ln)
}

// Serve is Run on a given listener. It returns once the API, the sequencer
// and the in-process devchain have all stopped, so that Close may follow.
// When ctx ends it stops gracefully: the API answers requests that may
// change state 503 shutting_down, what is under way finishes within
// ShutdownGrace (drain), then everything stops and it logs how.
func (n *Node) Serve(ctx context.Context, ln net.Listener) error {
	ln, scheme, err := n.Config.serveAPI(ln)
	if err != nil {
		ln.Close()
		return err
	}
	n.log.Info("ordo node listening", "addr", ln.Addr().String(), "scheme", scheme, "data", n.Config.Data, "chain", chainName(n.Config))
	if n.Config.DevMode {
		n.log.Warn(devModeWarning(n.Devchain != nil), "addr", ln.Addr().String())
	} else {
		n.log.Info("api access", "auth", n.Config.Auth()) // names and flags only: never a token
	}
	run := []func(context.Context) error{n.Sequencer.Run, n.engine("processor", startedOnce(n.Processor.Started()), n.rideFull("processor", n.Processor.Run))}
	if n.Leader != nil {
		run = append(run, n.engine("leader", startedOnce(n.Leader.Started()), n.rideFull("leader", n.Leader.Run)))
	}
	if n.Distseq != nil {
		run = append(run, n.engine("distseq", nil, n.Distseq.Run))
	}
	if n.leases != nil {
		run = append(run, n.leases.Run, n.watchIntake)
	}
	if n.SMM != nil {
		run = append(run, func(ctx context.Context) error {
			if err := n.SMM.Open(ctx); err != nil {
				return err
			}
			return n.SMM.Run(ctx)
		})
	}
	for i, f := range run {
		run[i] = n.held(f) // until the chain answers and is the store's (startup.go)
	}
	run = append(run, n.startup, n.sampler.Run)
	if n.Devchain != nil {
		run = append(run, n.Devchain.Run)
	}
	if n.reaper != nil {
		run = append(run, n.reaper.Run)
	}
	// When ctx ends (SIGTERM, SIGINT), the node drains first (shutdown.go)
	// while the API and the engines run on; then they stop.
	rctx, stop := context.WithCancel(context.WithoutCancel(ctx))
	defer stop()
	var d *drained
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		select {
		case <-ctx.Done():
			r := n.drain(rctx)
			d = &r
			stop()
		case <-rctx.Done():
		}
	}()
	onShutdown := n.streams.End
	if n.Devchain != nil {
		onShutdown = func() { n.streams.End(); n.Devchain.EndSubscriptions() }
	}
	err = ServeHTTP(rctx, ln, n.Handler, onShutdown, run...)
	stop()
	<-stopped
	n.logStop(d, err)
	return err
}

// ServeHTTP serves h on ln and runs each of run until ctx ends or one of
// them (or the server) stops; then it shuts the server down and returns once
// everything has stopped, with the first error. onShutdown (when not nil)
// ends the server's streams at shutdown (the devchain's head streams, the
// node's change streams), so that it need not wait for them.
func ServeHTTP(ctx context.Context, ln net.Listener, h http.Handler, onShutdown func(), run ...func(context.Context) error) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second, IdleTimeout: 2 * time.Minute}
	if onShutdown != nil {
		srv.RegisterOnShutdown(onShutdown)
	}
	errc := make(chan error, 1+len(run))
	var wg sync.WaitGroup
	defer wg.Wait()
	wg.Go(func() { errc <- srv.Serve(ln) })
	for _, f := range run {
		wg.Go(func() { errc <- f(ctx) })
	}
	var first error
	select {
	case <-ctx.Done():
	case first = <-errc:
	}
	cancel()
	sctx, scancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer scancel()
	// Serve has returned by now; a Shutdown that times out leaves the
	// connections still active to end on their own.
	_ = srv.Shutdown(sctx)
	if errors.Is(first, http.ErrServerClosed) {
		first = nil
	}
	return first
}

// devModeWarning is what a node in dev mode warns of at start.
func devModeWarning(inProcess bool) string {
	const open = "dev mode is on, and access is open: every caller is an admin, without a token (principals are ignored); "
	if inProcess {
		return open + "anyone who can reach this address can submit intents, submit raw chain transactions, set the chain's fault knobs, " +
			"use its faucet, list its dev accounts (the chain signs for them) and mine blocks; never expose it beyond a developer's machine"
	}
	return open + "anyone who can reach this address can submit intents and read everything; " +
		"never run a node in dev mode beyond a developer's machine"
}
