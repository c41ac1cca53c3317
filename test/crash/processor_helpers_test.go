package crash_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/chain/devchain"
	"github.com/ordolabs/ordo/internal/processor"
)

// papi calls the node's processor routes as one principal (token "" for a
// stranger).
type papi struct {
	base  string
	token string
	hc    *http.Client
}

// papiError is a non-2xx answer of the processor API.
type papiError struct {
	status int
	body   string
}

func (e *papiError) Error() string { return fmt.Sprintf("HTTP %d: %s", e.status, e.body) }

// statusOf is the HTTP status of a papiError, 0 for a transport error.
func statusOf(err error) int {
	var pe *papiError
	if errors.As(err, &pe) {
		return pe.status
	}
	return 0
}

// call sends method path with body (nil: none) and decodes a 2xx answer
// into out (nil: ignored).
func (a *papi) call(ctx context.Context, method, path string, body, out any) error {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, a.base+path, rd)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/json")
	if body != nil || method != http.MethodGet {
		req.Header.Set("Content-Type", "application/json")
	}
	if a.token != "" {
		req.Header.Set("Authorization", "Bearer "+a.token)
	}
	resp, err := a.hc.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return err
	}
	if resp.StatusCode/100 != 2 {
		return &papiError{status: resp.StatusCode, body: string(bytes.TrimSpace(b))}
	}
	if out != nil {
		return json.Unmarshal(b, out)
	}
	return nil
}

func procPath(name string, rest ...string) string {
	p := "/v1/processors/" + url.PathEscape(name)
	for _, r := range rest {
		p += "/" + r
	}
	return p
}

func (a *papi) create(ctx context.Context, s processor.CreateSpec) error {
	return a.call(ctx, http.MethodPost, "/v1/processors", s, nil)
}

func (a *papi) add(ctx context.Context, proc string, s processor.BatchSpec) (processor.AddResult, error) {
	var r processor.AddResult
	err := a.call(ctx, http.MethodPost, procPath(proc, "batches"), s, &r)
	return r, err
}

func (a *papi) tick(ctx context.Context, proc string) (processor.TickResult, error) {
	var r processor.TickResult
	err := a.call(ctx, http.MethodPost, procPath(proc, "tick"), struct{}{}, &r)
	return r, err
}

func (a *papi) pause(ctx context.Context, proc string, resume bool) error {
	op := "pause"
	if resume {
		op = "resume"
	}
	return a.call(ctx, http.MethodPost, procPath(proc, op), struct{}{}, nil)
}

func (a *papi) remove(ctx context.Context, proc string, pr processor.Priority, pos int) (processor.RemoveResult, error) {
	var r processor.RemoveResult
	err := a.call(ctx, http.MethodDelete, procPath(proc, "queues", string(pr), strconv.Itoa(pos)), nil, &r)
	return r, err
}

func (a *papi) confirm(ctx context.Context, proc, exec string, success bool) error {
	return a.call(ctx, http.MethodPost, procPath(proc, "confirmations"), map[string]any{"executionId": exec, "success": success}, nil)
}

func (a *papi) get(ctx context.Context, proc string) (processor.ProcessorView, error) {
	var v processor.ProcessorView
	err := a.call(ctx, http.MethodGet, procPath(proc), nil, &v)
	return v, err
}

func (a *papi) queue(ctx context.Context, proc string, pr processor.Priority) (processor.BatchesPage, error) {
	var p processor.BatchesPage
	err := a.call(ctx, http.MethodGet, procPath(proc, "queues", string(pr))+"?limit=1000", nil, &p)
	return p, err
}

// callbacks reads every callback of proc, page by page.
func (a *papi) callbacks(ctx context.Context, proc string) ([]callbackRow, error) {
	var all []callbackRow
	after := int64(0)
	for {
		var page struct {
			Callbacks []callbackRow `json:"callbacks"`
			Next      int64         `json:"next"`
		}
		if err := a.call(ctx, http.MethodGet, procPath(proc, "callbacks")+"?limit=1000&after="+strconv.FormatInt(after, 10), nil, &page); err != nil {
			return nil, err
		}
		all = append(all, page.Callbacks...)
		if len(page.Callbacks) == 0 || page.Next <= after {
			return all, nil
		}
		after = page.Next
	}
}

// callbackRow is a callback as GET …/callbacks lists it.
type callbackRow struct {
	Seq         int64                  `json:"seq"`
	BatchID     string                 `json:"batchId"`
	Key         string                 `json:"key"`
	Body        processor.CallbackBody `json:"body"`
	State       string                 `json:"state"`
	Attempts    int                    `json:"attempts"`
	LastError   string                 `json:"lastError"`
	CreatedAt   time.Time              `json:"createdAt"`
	DeliveredAt time.Time              `json:"deliveredAt"`
}

// delivery is one POST the webhook receiver got.
type delivery struct {
	key    string
	body   processor.CallbackBody
	raw    string
	status int  // what the receiver answered
	held   bool // the answer was held (past a kill, or past the node's delivery timeout)
}

// receiver is the owner's webhook: a plain net/http server, not ordo. It
// records every delivery by Idempotency-Key, answers 500 to a seeded share
// of them, and holds some answers until the node is next killed (or a
// while, past the node's delivery timeout).
type receiver struct {
	srv *http.Server
	url string

	mu      sync.Mutex
	rng     *rand.Rand
	byKey   map[string][]delivery
	total   int
	fails   int
	holding bool          // holding answers is on (off once the kills are over)
	killed  chan struct{} // closed at the next kill
	heldNow atomic.Int64
	held    int
}

// receiver knobs.
const (
	recvFailShare = 0.2
	recvHoldShare = 0.1
	recvHoldMax   = 1500 * time.Millisecond
)

func newReceiver(seed uint64) (*receiver, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	r := &receiver{rng: rand.New(rand.NewPCG(seed, 0x77656268)), byKey: map[string][]delivery{}, holding: true, killed: make(chan struct{})}
	r.url = "http://" + ln.Addr().String() + "/hook"
	r.srv = &http.Server{Handler: http.HandlerFunc(r.serve), ReadHeaderTimeout: 5 * time.Second}
	go func() { _ = r.srv.Serve(ln) }()
	return r, nil
}

func (r *receiver) close() { _ = r.srv.Close() }

func (r *receiver) serve(w http.ResponseWriter, req *http.Request) {
	raw, _ := io.ReadAll(io.LimitReader(req.Body, 1<<20))
	d := delivery{key: req.Header.Get("Idempotency-Key"), raw: string(raw), status: http.StatusOK}
	if err := json.Unmarshal(raw, &d.body); err != nil {
		d.status = http.StatusBadRequest
	}
	r.mu.Lock()
	roll := r.rng.Float64()
	var wait chan struct{}
	switch {
	case d.status != http.StatusOK:
	case roll < recvFailShare:
		d.status = http.StatusInternalServerError
		r.fails++
	case roll < recvFailShare+recvHoldShare && r.holding:
		d.held = true
		wait = r.killed
		r.held++
	}
	r.total++
	r.byKey[d.key] = append(r.byKey[d.key], d)
	r.mu.Unlock()
	if wait != nil {
		r.heldNow.Add(1)
		t := time.NewTimer(recvHoldMax)
		select {
		case <-wait:
		case <-t.C:
		case <-req.Context().Done():
		}
		t.Stop()
		r.heldNow.Add(-1)
	}
	w.WriteHeader(d.status)
}

// kill tells held answers that the node was killed: they are answered now,
// to a dead connection.
func (r *receiver) kill() {
	r.mu.Lock()
	close(r.killed)
	r.killed = make(chan struct{})
	r.mu.Unlock()
}

// stopHolding ends holding answers (the kills are over) and releases
// every held one.
func (r *receiver) stopHolding() {
	r.mu.Lock()
	r.holding = false
	close(r.killed)
	r.killed = make(chan struct{})
	r.mu.Unlock()
}

// snapshot returns a copy of the deliveries by key and the counts.
func (r *receiver) snapshot() (byKey map[string][]delivery, total, fails, held int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	byKey = make(map[string][]delivery, len(r.byKey))
	for k, ds := range r.byKey {
		byKey[k] = append([]delivery(nil), ds...)
	}
	return byKey, r.total, r.fails, r.held
}

// devSender sends devchain transactions from one dev account, which a
// devchain in dev mode signs for. Its calls are serialised (nonces).
type devSender struct {
	dc   *devchain.Client
	from chain.Address
	mu   sync.Mutex
	sent []chain.Hash
}

func newDevSender(ctx context.Context, dc *devchain.Client) (*devSender, error) {
	as, err := dc.DevAccounts(ctx)
	if err != nil {
		return nil, fmt.Errorf("devchain dev accounts: %w", err)
	}
	if len(as) == 0 {
		return nil, errors.New("devchain has no dev accounts")
	}
	return &devSender{dc: dc, from: as[0].Address}, nil
}

// send submits contract.method(args) with the account's pending nonce.
func (s *devSender) send(ctx context.Context, contract, method string, args any) (chain.Hash, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, err := json.Marshal(args)
	if err != nil {
		return "", err
	}
	acct, err := s.dc.Account(ctx, s.from)
	if err != nil {
		return "", err
	}
	fee, err := s.dc.MinFee(ctx)
	if err != nil {
		return "", err
	}
	tx := chain.Tx{From: s.from, Nonce: acct.PendingNonce, Fee: fee * 2, Contract: contract, Method: method, Args: b}
	h, err := s.dc.SendTx(ctx, tx)
	if err != nil {
		return "", fmt.Errorf("devchain %s.%s: %w", contract, method, err)
	}
	s.sent = append(s.sent, h)
	return h, nil
}

// waitIncluded polls until h is included and returns its status.
func waitIncluded(ctx context.Context, dc *devchain.Client, h chain.Hash, within time.Duration) (chain.TxStatus, error) {
	ctx, cancel := context.WithTimeout(ctx, within)
	defer cancel()
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		st, err := dc.TxStatus(ctx, h)
		if err == nil && st.State == chain.TxIncluded {
			return st, nil
		}
		select {
		case <-ctx.Done():
			return st, fmt.Errorf("tx %s not included within %s (last %+v): %w", h, within, st, errors.Join(ctx.Err(), err))
		case <-tick.C:
		}
	}
}
