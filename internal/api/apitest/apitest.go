package apitest

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/ordolabs/ordo/internal/api"
	"github.com/ordolabs/ordo/internal/auth"
	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/chain/devchain"
	"github.com/ordolabs/ordo/internal/clock"
	"github.com/ordolabs/ordo/internal/leader"
	"github.com/ordolabs/ordo/internal/processor"
	"github.com/ordolabs/ordo/internal/ptx"
	"github.com/ordolabs/ordo/internal/sequencer"
	"github.com/ordolabs/ordo/internal/sequencer/dispatch"
	"github.com/ordolabs/ordo/internal/smm"
	"github.com/ordolabs/ordo/internal/store"
	"github.com/ordolabs/ordo/internal/store/sqlite"
)

// Options tune Start. The zero value runs the node, with blocks only on
// demand (Chain.Mine).
type Options struct {
	// NoRun leaves the node unstarted: Run is never called, so intake
	// commits but nothing is dispatched and /healthz answers 503.
	NoRun bool
	// BlockTime, when set, drives the devchain with Run on the real clock.
	BlockTime time.Duration
	// MaxBody is api.Options.MaxBody.
	MaxBody int64
	// MaxBatchBody is api.Options.MaxBatchBody.
	MaxBatchBody int64
	// Senders is how many dev accounts become senders. Defaults to 4.
	Senders int
	// MaxRetries is each built-in dispatcher's. Defaults to 3.
	MaxRetries int
	// StartTimeout bounds the wait for the node to start. Defaults to 30s.
	StartTimeout time.Duration
	// Logger defaults to one that discards.
	Logger *slog.Logger
	// Intake is the sequencer's intake rules (zero: the defaults).
	Intake sequencer.IntakeRules
	// Store configures the SQLite store (the zero value is the production
	// default: every commit fsynced).
	Store sqlite.Options
	// WrapChain, when set, wraps the devchain before the node uses it (a
	// test double that fails on demand, say); the result is then metered
	// like the devchain is otherwise (chain.NewMetered).
	WrapChain func(chain.Chain) chain.Chain
	// ChainTimeout is api.Options.ChainTimeout.
	ChainTimeout time.Duration
	// Principals are the callers the API knows. Defaults to none, which
	// runs the API open, as a node in dev mode does: every caller is an
	// admin.
	Principals []auth.PrincipalConfig
	// OpenReads lets anyone read without a token (with Principals).
	OpenReads bool
	// TypeRoles is api.Options.TypeRoles (nil: its default).
	TypeRoles map[string][]auth.Role
	// Engines are api.Options.Engines, mounted after the devchain's.
	Engines []api.Routes
	// WrapIntake, when set, makes api.Options.Intake of the sequencer's
	// intake (a test double that counts or refuses intents, say).
	WrapIntake func(api.Intake) api.Intake
	// IntakeLimiter is api.Options.IntakeLimiter (nil: no limit).
	IntakeLimiter *auth.Limiter
	// Conditions is api.Options.Conditions.
	Conditions func() []api.Condition
	// Clock is api.Options.Clock: the change stream's (nil: the real
	// clock).
	Clock clock.Clock
}

// seqIntake is the sequencer as an api.Intake, on behalf of the
// principal given.
type seqIntake struct{ n *sequencer.Node }

func (i seqIntake) Submit(ctx context.Context, principal string, in []sequencer.Intake) ([]store.EnqueueResult, error) {
	for j := range in {
		in[j].Principal = principal
	}
	return i.n.Submit(ctx, in)
}

// Node is a running node and its parts.
type Node struct {
	// URL is the API's base URL.
	URL     string
	Server  *httptest.Server
	Handler http.Handler
	Chain   *devchain.Chain
	// Metered is the chain the sequencer and /healthz use: the devchain
	// (through Options.WrapChain when set), metered.
	Metered chain.HealthReporter
	Seq     *sequencer.Node
	// Proc is the processor engine, on the same store and sequencer; its
	// routes are mounted, and it runs with the sequencer.
	Proc *processor.Node
	// Leader is the leader engine with one channel on the first sender
	// (no cap on chain: it serves its routes and indexes nothing).
	Leader   *leader.Node
	Store    *sqlite.Store
	Registry *prometheus.Registry
	// Router is the API's router (its Routes, for a table test).
	Router *auth.Router
	// Streams ends the change streams (api.Options.Streams): Close ends
	// them before it closes the server, as a node's shutdown does.
	Streams *api.Streams

	cleanups []func() error
	// mu guards violations: the requests and answers the OpenAPI
	// document does not allow (validating), which Close returns.
	mu         sync.Mutex
	violations []error
}

// Start starts a node. Close stops it and removes its files.
func Start(opts Options) (_ *Node, err error) {
	if opts.Senders <= 0 {
		opts.Senders = 4
	}
	if opts.MaxRetries <= 0 {
		opts.MaxRetries = 3
	}
	if opts.StartTimeout <= 0 {
		opts.StartTimeout = 30 * time.Second
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	n := &Node{Streams: &api.Streams{}}
	defer func() {
		if err != nil {
			err = errors.Join(err, n.Close())
		}
	}()
	ctx, cancel := context.WithCancel(context.Background())
	n.onClose(func() error { cancel(); return nil })

	dir, err := os.MkdirTemp("", "ordo-apitest-")
	if err != nil {
		return nil, fmt.Errorf("apitest: %w", err)
	}
	n.onClose(func() error { return os.RemoveAll(dir) })
	if n.Store, err = sqlite.Open(ctx, filepath.Join(dir, "ordo.db"), opts.Store); err != nil {
		return nil, fmt.Errorf("apitest: %w", err)
	}
	n.onClose(n.Store.Close)
	if n.Chain, err = devchain.New(devchain.Config{BlockTime: opts.BlockTime}); err != nil {
		return nil, fmt.Errorf("apitest: %w", err)
	}
	n.onClose(n.Chain.Close)
	accts, err := n.Chain.DevAccounts(ctx)
	if err != nil {
		return nil, fmt.Errorf("apitest: %w", err)
	}
	var senders []sequencer.SenderConfig
	for _, a := range accts[:min(opts.Senders, len(accts))] {
		k, _ := n.Chain.DevKey(a.Address)
		senders = append(senders, sequencer.SenderConfig{ID: a.Address, Key: k})
	}
	keys := func(id string) chain.Key { k, _ := n.Chain.DevKey(chain.Address(id)); return chain.Ed25519Key(k) }
	disp := map[string]sequencer.Dispatcher{}
	for _, typ := range dispatch.BuiltinTypes() {
		d, err := dispatch.NewZkAppDispatcher(typ, opts.MaxRetries, n.Chain, keys)
		if err != nil {
			return nil, fmt.Errorf("apitest: %w", err)
		}
		disp[typ] = d
	}
	disp[processor.SubmitType] = dispatch.NewCallDispatcher(0, n.Chain, keys)
	n.Registry = prometheus.NewRegistry()
	var used chain.Chain = n.Chain
	if opts.WrapChain != nil {
		used = opts.WrapChain(used)
	}
	n.Metered = chain.NewMetered(used, chain.MeteredOptions{Registerer: n.Registry, Logger: opts.Logger})
	n.Seq, err = sequencer.NewNode(sequencer.Config{Store: n.Store, Chain: n.Metered, Dispatchers: disp, Senders: senders, Intake: opts.Intake,
		EngineTypes: []string{processor.SubmitType},
		Metrics:     sequencer.NewMetrics(n.Registry), Logger: opts.Logger, PollInterval: 20 * time.Millisecond,
		OnFinish: func(uid string, s store.TxState, _ uint64) { n.Proc.Finished(uid, s) }})
	if err != nil {
		return nil, fmt.Errorf("apitest: %w", err)
	}
	if n.Proc, err = processor.New(processor.Config{Store: n.Store, Sequencer: n.Seq, Records: n.Store, Chain: n.Metered,
		Logger: opts.Logger, PollInterval: 20 * time.Millisecond}); err != nil {
		return nil, fmt.Errorf("apitest: %w", err)
	}
	if n.Leader, err = leader.New(leader.Config{Store: n.Store, Sequencer: n.Seq, Records: n.Store, Chain: n.Metered, Logger: opts.Logger,
		PollInterval: 20 * time.Millisecond, Core: leader.CoreConfig{Accounts: []string{string(senders[0].ID)}}}); err != nil {
		return nil, fmt.Errorf("apitest: %w", err)
	}
	if opts.BlockTime > 0 {
		done := make(chan struct{})
		go func() { defer close(done); _ = n.Chain.Run(ctx) }() // ends with ctx, at Close
		n.onClose(func() error { cancel(); <-done; return nil })
	}
	if !opts.NoRun {
		done := make(chan error, 1)
		go func() { done <- n.Seq.Run(ctx) }()
		n.onClose(func() error { cancel(); return <-done })
		procDone := make(chan error, 1)
		go func() { procDone <- n.Proc.Run(ctx) }()
		n.onClose(func() error { cancel(); return <-procDone })
		leadDone := make(chan error, 1)
		go func() { leadDone <- n.Leader.Run(ctx) }()
		n.onClose(func() error { cancel(); return <-leadDone })
		t := time.NewTimer(opts.StartTimeout)
		defer t.Stop()
		select {
		case <-n.Seq.Started():
		case err := <-done:
			done <- err
			return nil, fmt.Errorf("apitest: the node stopped before starting: %w", err)
		case <-t.C:
			return nil, fmt.Errorf("apitest: the node did not start within %v", opts.StartTimeout)
		}
		select {
		case <-n.Proc.Started():
		case err := <-procDone:
			procDone <- err
			return nil, fmt.Errorf("apitest: the processor stopped before starting: %w", err)
		case <-t.C:
			return nil, fmt.Errorf("apitest: the processor did not start within %v", opts.StartTimeout)
		}
	}
	a, err := auth.New(auth.Config{Principals: opts.Principals, OpenReads: opts.OpenReads, Open: len(opts.Principals) == 0})
	if err != nil {
		return nil, fmt.Errorf("apitest: %w", err)
	}
	engines := append([]api.Routes{api.DevchainRoutes(devchain.NewHandler(n.Chain, devchain.WithLogger(opts.Logger))), n.Proc, n.Leader, ptx.Handler{}, ptx.Peers{}, smm.Routes{}}, opts.Engines...)
	var intake api.Intake
	if opts.WrapIntake != nil {
		intake = opts.WrapIntake(seqIntake{n.Seq})
	}
	n.Router = api.NewSequencerHandler(n.Seq, api.Options{Registry: n.Registry, Logger: opts.Logger, MaxBody: opts.MaxBody, MaxBatchBody: opts.MaxBatchBody,
		Chain: n.Metered, ChainTimeout: opts.ChainTimeout, Auth: a, TypeRoles: opts.TypeRoles, Engines: engines, Intake: intake,
		IntakeLimiter: opts.IntakeLimiter, Conditions: opts.Conditions, Clock: opts.Clock, Streams: n.Streams})
	v, err := validator()
	if err != nil {
		return nil, fmt.Errorf("apitest: the OpenAPI document: %w", err)
	}
	n.Handler = n.validating(v, n.Router)
	n.Server = httptest.NewServer(n.Handler)
	n.URL = n.Server.URL
	n.onClose(func() error { n.Streams.End(); n.Server.Close(); return nil })
	return n, nil
}

// onClose registers a cleanup; Close runs them last first.
func (n *Node) onClose(f func() error) { n.cleanups = append(n.cleanups, f) }

// Close stops the server, the node and the chain, closes the store and
// removes its files. It returns the node's Run error, if any, and every
// request or answer the OpenAPI document does not allow.
func (n *Node) Close() error {
	var errs []error
	for i := len(n.cleanups) - 1; i >= 0; i-- {
		errs = append(errs, n.cleanups[i]())
	}
	n.cleanups = nil
	n.mu.Lock()
	errs = append(errs, n.violations...)
	n.violations = nil
	n.mu.Unlock()
	return errors.Join(errs...)
}
