package devchain_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"maps"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/chain/devchain"
	"github.com/ordolabs/ordo/internal/clock"
)

// env is a devchain served over HTTP, with a client of it.
type env struct {
	chain  *devchain.Chain
	clk    *clock.Virtual
	srv    *httptest.Server
	client *devchain.Client
	dev    chain.Address // first dev account
}

func newEnv(t *testing.T, cfg devchain.Config) *env {
	t.Helper()
	clk := clock.NewVirtual(clock.Epoch)
	cfg.Clock = clk
	c, err := devchain.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(devchain.NewHandler(c))
	t.Cleanup(func() {
		c.Close() // ends head streams, so that srv.Close does not wait on them
		srv.Close()
	})
	e := &env{chain: c, clk: clk, srv: srv, client: devchain.NewClient(srv.URL, nil)}
	t.Cleanup(e.client.CloseIdleConnections)
	if !cfg.NoDevMode {
		devs, err := c.DevAccounts(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		e.dev = devs[0].Address
	}
	return e
}

// rawResponse is an answer read in full.
type rawResponse struct {
	status int
	header http.Header
	body   []byte
}

// raw sends a request as a client does: a POST or PUT with Content-Type:
// application/json.
func (e *env) raw(t *testing.T, method, path string, body []byte) rawResponse {
	t.Helper()
	h := http.Header{}
	if method == http.MethodPost || method == http.MethodPut {
		h.Set("Content-Type", "application/json")
	}
	return e.rawWith(t, method, path, body, h)
}

// rawWith sends a request with exactly the headers h.
func (e *env) rawWith(t *testing.T, method, path string, body []byte, h http.Header) rawResponse {
	t.Helper()
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(t.Context(), method, e.srv.URL+path, rd)
	if err != nil {
		t.Fatal(err)
	}
	maps.Copy(req.Header, h)
	resp, err := e.srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return rawResponse{status: resp.StatusCode, header: resp.Header, body: b}
}

// snapshot is the chain state a rejected request must leave as it was.
type snapshot struct {
	head   chain.BlockHeader
	stats  devchain.Stats
	faults devchain.FaultState
	acct   chain.Account
}

func (e *env) snap(t *testing.T) snapshot {
	t.Helper()
	ctx := context.Background()
	s := snapshot{stats: e.chain.Stats()}
	var err error
	if s.head, err = e.chain.Head(ctx); err != nil {
		t.Fatal(err)
	}
	if s.faults, err = e.chain.Faults(ctx); err != nil {
		t.Fatal(err)
	}
	if e.dev != "" {
		if s.acct, err = e.chain.Account(ctx, e.dev); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

func txJSON(t *testing.T, tx chain.Tx) []byte {
	t.Helper()
	b, err := json.Marshal(tx)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func deployTx(from chain.Address, nonce uint64, zk string) chain.Tx {
	return chain.Tx{From: from, Nonce: nonce, Fee: 1000, Contract: "zkapp", Method: "deploy", Args: json.RawMessage(`{"zkapp":"` + zk + `"}`), Memo: "rec-" + zk}
}

func TestHTTPHappyPath(t *testing.T) {
	ctx := t.Context()
	e := newEnv(t, devchain.Config{})
	cl := e.client

	hd, err := cl.Head(ctx)
	if err != nil || hd.Height != 0 || hd.Hash == "" {
		t.Fatalf("head = %+v, %v", hd, err)
	}
	devs, err := cl.DevAccounts(ctx)
	if err != nil || len(devs) != 16 || devs[0].Address != e.dev || devs[0].Balance != 1e15 {
		t.Fatalf("dev accounts = %+v, %v", devs, err)
	}
	if fee, err := cl.MinFee(ctx); err != nil || fee != 1000 {
		t.Fatalf("min fee = %d, %v", fee, err)
	}

	h, err := cl.SendTx(ctx, deployTx(e.dev, 0, "z1"))
	if err != nil {
		t.Fatal(err)
	}
	if want := deployTx(e.dev, 0, "z1"); h != want.Hash() {
		t.Fatalf("hash %s, want %s", h, want.Hash())
	}
	if st, err := cl.TxStatus(ctx, h); err != nil || st.State != chain.TxPending {
		t.Fatalf("status before mining = %+v, %v", st, err)
	}
	if a, err := cl.Account(ctx, e.dev); err != nil || a.Nonce != 0 || a.PendingNonce != 1 {
		t.Fatalf("account = %+v, %v", a, err)
	}
	e.clk.Advance(time.Second)
	mined, ok, err := cl.Mine(ctx)
	if err != nil || !ok || mined.Height != 1 || mined.TxCount != 1 {
		t.Fatalf("mine = %+v, %v, %v", mined, ok, err)
	}
	if st, err := cl.TxStatus(ctx, h); err != nil || st.State != chain.TxIncluded || !st.Success || st.Height != 1 {
		t.Fatalf("status after mining = %+v, %v", st, err)
	}
	if st, err := cl.TxStatus(ctx, chain.Hash(strings.Repeat("0", 64))); err != nil || st.State != chain.TxUnknown {
		t.Fatalf("status of an unknown hash = %+v, %v", st, err)
	}

	blocks, err := cl.Blocks(ctx, 0, 10)
	if err != nil || len(blocks) != 2 || blocks[1].Hash != mined.Hash {
		t.Fatalf("blocks = %+v, %v", blocks, err)
	}
	want, _ := e.chain.Blocks(ctx, 0, 10)
	if gb, wb := mustJSON(t, blocks), mustJSON(t, want); !bytes.Equal(gb, wb) {
		t.Fatalf("blocks over HTTP differ:\n got %s\nwant %s", gb, wb)
	}
	bt := blocks[1].Txs[0]
	if bt.Hash != h || bt.From != e.dev || bt.Memo != "rec-z1" || bt.Status != chain.OutcomeSucceeded || bt.Method != "deploy" {
		t.Fatalf("block tx = %+v", bt)
	}

	evs, err := cl.Events(ctx, 0, 0)
	if err != nil || len(evs) != 1 || evs[0].Name != "deploy" || evs[0].TxHash != h {
		t.Fatalf("events = %+v, %v", evs, err)
	}
	if evs, err := cl.Events(ctx, evs[0].Cursor, 10); err != nil || evs != nil {
		t.Fatalf("events after the last = %+v, %v", evs, err)
	}

	out, err := cl.Call(ctx, "zkapp", "get", json.RawMessage(`{"zkapp":"z1"}`))
	if err != nil {
		t.Fatal(err)
	}
	inproc, _ := e.chain.Call(ctx, "zkapp", "get", json.RawMessage(`{"zkapp":"z1"}`))
	if !bytes.Equal(out, inproc) {
		t.Fatalf("call = %s, want %s", out, inproc)
	}

	other := chain.KeyAddress(chain.KeyFromSeed("http-test"))
	a, err := cl.Faucet(ctx, other, 5000)
	if err != nil || a.Balance != 5000 || a.Address != other {
		t.Fatalf("faucet = %+v, %v", a, err)
	}

	fs, err := cl.SetFaults(ctx, devchain.FaultUpdate{RejectProb: ptr(0.25), FeeSpike: &devchain.FeeSpike{Factor: 3, Blocks: 2}})
	if err != nil || fs.RejectProb != 0.25 || fs.MinFee != 3000 {
		t.Fatalf("set faults = %+v, %v", fs, err)
	}
	got, err := cl.Faults(ctx)
	if err != nil || got != fs {
		t.Fatalf("faults = %+v, %v; want %+v", got, err, fs)
	}
	if fee, err := cl.MinFee(ctx); err != nil || fee != 3000 {
		t.Fatalf("min fee during a spike = %d, %v", fee, err)
	}

	// A stall: Mine makes no block.
	if _, err := cl.SetFaults(ctx, devchain.FaultUpdate{Stall: ptr(devchain.Duration(time.Minute))}); err != nil {
		t.Fatal(err)
	}
	if hdr, ok, err := cl.Mine(ctx); err != nil || ok || hdr != (chain.BlockHeader{}) {
		t.Fatalf("mine during a stall = %+v, %v, %v", hdr, ok, err)
	}
}

func TestHTTPRawShapes(t *testing.T) {
	ctx := t.Context()
	e := newEnv(t, devchain.Config{})
	if _, err := e.client.SendTx(ctx, deployTx(e.dev, 0, "z1")); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if _, _, err := e.chain.Mine(ctx); err != nil {
			t.Fatal(err)
		}
	}
	// Missing `to`: from+99, capped at the head.
	r := e.raw(t, "GET", "/v1/blocks?from=1", nil)
	if r.status != 200 || r.header.Get("Content-Type") != "application/json" {
		t.Fatalf("blocks: %d %s", r.status, r.body)
	}
	var blocks struct {
		Blocks []map[string]json.RawMessage `json:"blocks"`
	}
	mustUnmarshal(t, r.body, &blocks)
	if len(blocks.Blocks) != 3 {
		t.Fatalf("blocks from 1 = %d, want 3", len(blocks.Blocks))
	}
	var txs []map[string]json.RawMessage
	mustUnmarshal(t, blocks.Blocks[0]["txs"], &txs)
	for _, f := range []string{"hash", "from", "nonce", "fee", "contract", "method", "args", "memo", "status"} {
		if _, ok := txs[0][f]; !ok {
			t.Errorf("block tx lacks %q: %v", f, txs[0])
		}
	}
	// A range past the head is empty, not null.
	r = e.raw(t, "GET", "/v1/blocks?from=50&to=60", nil)
	if r.status != 200 || !bytes.Contains(r.body, []byte(`"blocks":[]`)) {
		t.Fatalf("blocks past the head: %d %s", r.status, r.body)
	}
	// A range over 1000 is capped; from near the top of uint64 does not wrap.
	if r = e.raw(t, "GET", "/v1/blocks?from=0&to=5000", nil); r.status != 200 {
		t.Fatalf("wide range: %d %s", r.status, r.body)
	}
	if r = e.raw(t, "GET", "/v1/blocks?from=18446744073709551615", nil); r.status != 200 {
		t.Fatalf("from max: %d %s", r.status, r.body)
	}

	var ev struct {
		Events []chain.Event `json:"events"`
		Next   uint64        `json:"next"`
	}
	mustUnmarshal(t, e.raw(t, "GET", "/v1/events?cursor=0&limit=5", nil).body, &ev)
	if len(ev.Events) != 1 || ev.Next != ev.Events[0].Cursor {
		t.Fatalf("events = %+v", ev)
	}
	mustUnmarshal(t, e.raw(t, "GET", "/v1/events?cursor=7", nil).body, &ev)
	if len(ev.Events) != 0 || ev.Next != 7 {
		t.Fatalf("events after 7 = %+v", ev)
	}
	var mine struct {
		Mined bool              `json:"mined"`
		Head  chain.BlockHeader `json:"head"`
	}
	mustUnmarshal(t, e.raw(t, "POST", "/v1/dev/mine", nil).body, &mine)
	if !mine.Mined || mine.Head.Height != 4 {
		t.Fatalf("mine = %+v", mine)
	}
}

// TestHTTPErrors checks each error path's status and code and that the
// request changed nothing.
func TestHTTPErrors(t *testing.T) {
	e := newEnv(t, devchain.Config{})
	ctx := t.Context()
	stranger := chain.KeyFromSeed("stranger")
	strangerAddr := chain.KeyAddress(stranger)
	// Some state to be left alone: an included and a pending transaction, a
	// funded stranger.
	if _, err := e.chain.SendTx(ctx, deployTx(e.dev, 0, "z1")); err != nil {
		t.Fatal(err)
	}
	if _, _, err := e.chain.Mine(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := e.chain.SendTx(ctx, deployTx(e.dev, 1, "z2")); err != nil {
		t.Fatal(err)
	}
	if _, err := e.chain.Faucet(ctx, strangerAddr, 500); err != nil {
		t.Fatal(err)
	}

	signed := func(mut func(*chain.Tx)) []byte {
		tx := deployTx(strangerAddr, 0, "s")
		mut(&tx)
		tx.Sign(stranger)
		return txJSON(t, tx)
	}
	dev := func(mut func(*chain.Tx)) []byte {
		tx := deployTx(e.dev, 2, "d")
		mut(&tx)
		return txJSON(t, tx)
	}
	hugeArgs := `{"zkapp":"x","pad":"` + strings.Repeat("a", chain.MaxEncodedTx) + `"}`
	cases := []struct {
		name, method, path, body string
		status                   int
		code                     string
	}{
		{"tx malformed json", "POST", "/v1/tx", `{"from":`, 400, "bad_json"},
		{"tx empty body", "POST", "/v1/tx", ``, 400, "bad_json"},
		{"tx unknown field", "POST", "/v1/tx", strings.Replace(string(dev(func(*chain.Tx) {})), `{`, `{"extra":1,`, 1), 400, "bad_json"},
		{"tx trailing data", "POST", "/v1/tx", string(dev(func(*chain.Tx) {})) + `}`, 400, "bad_json"},
		{"tx field name case", "POST", "/v1/tx", strings.Replace(string(dev(func(*chain.Tx) {})), `"from"`, `"FROM"`, 1), 400, "bad_json"},
		{"tx trailing bracket", "POST", "/v1/tx", string(dev(func(*chain.Tx) {})) + `]`, 400, "bad_json"},
		{"tx wrong type", "POST", "/v1/tx", `{"nonce":"1"}`, 400, "bad_json"},
		{"tx negative nonce", "POST", "/v1/tx", `{"nonce":-1}`, 400, "bad_json"},
		{"tx invalid from", "POST", "/v1/tx", string(dev(func(tx *chain.Tx) { tx.From = "abc" })), 422, "invalid_tx"},
		{"tx invalid memo", "POST", "/v1/tx", string(dev(func(tx *chain.Tx) { tx.Memo = strings.Repeat("m", 300) })), 422, "invalid_tx"},
		{"tx unknown contract", "POST", "/v1/tx", string(dev(func(tx *chain.Tx) { tx.Contract = "nope" })), 422, "unknown_contract"},
		{"tx unsigned stranger", "POST", "/v1/tx", string(txJSON(t, deployTx(strangerAddr, 0, "s"))), 422, "bad_signature"},
		{"tx wrong signature", "POST", "/v1/tx", strings.Replace(string(signed(func(*chain.Tx) {})), `"memo":"rec-s"`, `"memo":"rec-t"`, 1), 422, "bad_signature"},
		{"tx nonce too low", "POST", "/v1/tx", string(dev(func(tx *chain.Tx) { tx.Nonce = 0 })), 409, "nonce_too_low"},
		{"tx nonce too high", "POST", "/v1/tx", string(dev(func(tx *chain.Tx) { tx.Nonce = 5000 })), 409, "nonce_too_high"},
		{"tx fee too low", "POST", "/v1/tx", string(dev(func(tx *chain.Tx) { tx.Fee = 1 })), 409, "fee_too_low"},
		{"tx replacement underpriced", "POST", "/v1/tx", string(dev(func(tx *chain.Tx) { tx.Nonce, tx.Memo = 1, "other" })), 409, "replacement_underpriced"},
		{"tx insufficient funds", "POST", "/v1/tx", string(signed(func(tx *chain.Tx) { tx.Fee = 1000 })), 409, "insufficient_funds"},
		{"tx too large", "POST", "/v1/tx", string(dev(func(tx *chain.Tx) { tx.Args = json.RawMessage(hugeArgs) })), 413, "too_large"},
		{"faucet too large", "POST", "/v1/faucet", `{"address":"` + strings.Repeat("a", 2<<20) + `"}`, 413, "too_large"},
		{"faucet malformed", "POST", "/v1/faucet", `{"address":`, 400, "bad_json"},
		{"faucet unknown field", "POST", "/v1/faucet", `{"address":"` + string(strangerAddr) + `","amount":1,"to":"x"}`, 400, "bad_json"},
		{"faucet negative", "POST", "/v1/faucet", `{"address":"` + string(strangerAddr) + `","amount":-1}`, 400, "bad_json"},
		{"faucet bad address", "POST", "/v1/faucet", `{"address":"XYZ","amount":1}`, 422, "invalid_tx"},
		{"faucet zero", "POST", "/v1/faucet", `{"address":"` + string(strangerAddr) + `","amount":0}`, 422, "invalid_tx"},
		{"faucet over max", "POST", "/v1/faucet", `{"address":"` + string(strangerAddr) + `","amount":18446744073709551615}`, 422, "faucet_limit"},
		{"tx status bad hash", "GET", "/v1/tx/xyz", ``, 400, "bad_hash"},
		{"tx status uppercase hash", "GET", "/v1/tx/" + strings.Repeat("A", 64), ``, 400, "bad_hash"},
		{"account bad address", "GET", "/v1/accounts/zz", ``, 400, "bad_address"},
		{"account uppercase address", "GET", "/v1/accounts/" + strings.ToUpper(string(e.dev)), ``, 400, "bad_address"},
		{"call malformed", "POST", "/v1/call", `[`, 400, "bad_json"},
		{"call unknown field", "POST", "/v1/call", `{"contract":"zkapp","method":"get","x":1}`, 400, "bad_json"},
		{"call unknown contract", "POST", "/v1/call", `{"contract":"nope","method":"get"}`, 422, "unknown_contract"},
		{"call unknown method", "POST", "/v1/call", `{"contract":"zkapp","method":"nope","args":{}}`, 422, "unknown_method"},
		{"call failed", "POST", "/v1/call", `{"contract":"zkapp","method":"get","args":{"zkapp":"absent"}}`, 422, "call_failed"},
		{"faults out of range", "PUT", "/v1/faults", `{"rejectProb":2}`, 422, "invalid_faults"},
		{"faults mixed valid and invalid", "PUT", "/v1/faults", `{"dropProb":0.5,"reorg":100}`, 422, "invalid_faults"},
		{"faults zero reorg", "PUT", "/v1/faults", `{"reorg":0}`, 422, "invalid_faults"},
		{"faults unknown field", "PUT", "/v1/faults", `{"rejectprob":0.5}`, 400, "bad_json"},
		{"faults nested unknown field", "PUT", "/v1/faults", `{"feeSpike":{"factor":2,"blocks":1,"x":0}}`, 400, "bad_json"},
		{"faults duplicate field", "PUT", "/v1/faults", `{"rejectProb":0.1,"rejectProb":0.2}`, 400, "bad_json"},
		{"faults trailing data", "PUT", "/v1/faults", `{"rejectProb":0.1}]`, 400, "bad_json"},
		{"faults bad duration", "PUT", "/v1/faults", `{"stall":"soon"}`, 400, "bad_json"},
		{"faults negative stall", "PUT", "/v1/faults", `{"stall":"-5s"}`, 422, "invalid_faults"},
		{"blocks bad from", "GET", "/v1/blocks?from=x", ``, 400, "bad_query"},
		{"blocks negative to", "GET", "/v1/blocks?from=0&to=-1", ``, 400, "bad_query"},
		{"blocks to below from", "GET", "/v1/blocks?from=5&to=1", ``, 400, "bad_query"},
		{"blocks repeated from", "GET", "/v1/blocks?from=1&from=2", ``, 400, "bad_query"},
		{"events bad cursor", "GET", "/v1/events?cursor=-1", ``, 400, "bad_query"},
		{"events zero limit", "GET", "/v1/events?limit=0", ``, 400, "bad_query"},
		{"events huge limit", "GET", "/v1/events?limit=1001", ``, 400, "bad_query"},
		{"wrong method head", "POST", "/v1/head", `{}`, 405, "method_not_allowed"},
		{"wrong method tx", "DELETE", "/v1/tx", ``, 405, "method_not_allowed"},
		{"wrong method faults", "POST", "/v1/faults", `{}`, 405, "method_not_allowed"},
		{"unknown route", "GET", "/v1/nope", ``, 404, "route_not_found"},
		{"root", "GET", "/", ``, 404, "route_not_found"},
		{"empty hash segment", "GET", "/v1/tx/", ``, 404, "route_not_found"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := e.snap(t)
			var body []byte
			if tc.body != "" || tc.method != "GET" {
				body = []byte(tc.body)
			}
			r := e.raw(t, tc.method, tc.path, body)
			checkError(t, r, tc.status, tc.code)
			if tc.status == 405 && r.header.Get("Allow") == "" {
				t.Errorf("405 without an Allow header")
			}
			if after := e.snap(t); after != before {
				t.Fatalf("state changed:\nbefore %+v\n after %+v", before, after)
			}
		})
	}
}

func checkError(t *testing.T, r rawResponse, status int, code string) {
	t.Helper()
	if r.status != status {
		t.Fatalf("status %d, want %d; body %s", r.status, status, r.body)
	}
	if ct := r.header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("content type %q", ct)
	}
	var eb struct {
		Error struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	dec := json.NewDecoder(bytes.NewReader(r.body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&eb); err != nil {
		t.Fatalf("error body %q: %v", r.body, err)
	}
	if eb.Error.Code != code || eb.Error.Message == "" {
		t.Fatalf("error %+v, want code %q with a message", eb.Error, code)
	}
}

func TestHTTPNotDevModeAndMempoolFull(t *testing.T) {
	t.Run("not dev mode", func(t *testing.T) {
		e := newEnv(t, devchain.Config{NoDevMode: true})
		before := e.snap(t)
		addr := chain.KeyAddress(chain.KeyFromSeed("x"))
		checkError(t, e.raw(t, "POST", "/v1/faucet", []byte(`{"address":"`+string(addr)+`","amount":5}`)), 403, "not_dev_mode")
		checkError(t, e.raw(t, "GET", "/v1/dev/accounts", nil), 403, "not_dev_mode")
		if _, err := e.client.Faucet(t.Context(), addr, 5); !errors.Is(err, chain.ErrNotDevMode) {
			t.Fatalf("client faucet err = %v, want ErrNotDevMode", err)
		}
		if after := e.snap(t); after != before {
			t.Fatalf("state changed")
		}
	})
	t.Run("mempool full", func(t *testing.T) {
		e := newEnv(t, devchain.Config{MaxMempool: 1})
		if _, err := e.client.SendTx(t.Context(), deployTx(e.dev, 0, "a")); err != nil {
			t.Fatal(err)
		}
		before := e.snap(t)
		checkError(t, e.raw(t, "POST", "/v1/tx", txJSON(t, deployTx(e.dev, 1, "b"))), 503, "mempool_full")
		if _, err := e.client.SendTx(t.Context(), deployTx(e.dev, 1, "b")); !errors.Is(err, chain.ErrMempoolFull) {
			t.Fatalf("client err = %v, want ErrMempoolFull", err)
		}
		if after := e.snap(t); after != before {
			t.Fatalf("state changed")
		}
	})
	t.Run("closed chain", func(t *testing.T) {
		e := newEnv(t, devchain.Config{})
		e.chain.Close()
		checkError(t, e.raw(t, "POST", "/v1/dev/mine", nil), 409, "rejected")
		checkError(t, e.raw(t, "GET", "/v1/blocks/subscribe", nil), 409, "rejected")
		if _, err := e.client.SubscribeHeads(t.Context()); !errors.Is(err, chain.ErrRejected) {
			t.Fatalf("subscribe to a closed chain: %v", err)
		}
	})
}

// devAPI is what both *devchain.Chain and *devchain.Client offer.
type devAPI interface {
	chain.Chain
	Faucet(ctx context.Context, addr chain.Address, amount uint64) (chain.Account, error)
}

// TestClientErrorsMatchInProcess checks that the client returns the same
// sentinel and the same text as the in-process chain.
func TestClientErrorsMatchInProcess(t *testing.T) {
	ctx := t.Context()
	e := newEnv(t, devchain.Config{FaucetAccountMax: 1e15 - 1})
	if _, err := e.client.SendTx(ctx, deployTx(e.dev, 0, "z")); err != nil {
		t.Fatal(err)
	}
	if _, _, err := e.client.Mine(ctx); err != nil {
		t.Fatal(err)
	}
	stranger := chain.KeyAddress(chain.KeyFromSeed("s"))
	cases := []struct {
		name string
		want error
		call func(devAPI) error
	}{
		{"nonce too low", chain.ErrNonceTooLow, func(c devAPI) error { _, err := c.SendTx(ctx, deployTx(e.dev, 0, "y")); return err }},
		{"nonce too high", chain.ErrNonceTooHigh, func(c devAPI) error { _, err := c.SendTx(ctx, deployTx(e.dev, 9999, "y")); return err }},
		{"invalid tx", chain.ErrInvalidTx, func(c devAPI) error {
			tx := deployTx(e.dev, 1, "y")
			tx.Method = "Bad Name"
			_, err := c.SendTx(ctx, tx)
			return err
		}},
		{"unsigned stranger", chain.ErrBadSignature, func(c devAPI) error { _, err := c.SendTx(ctx, deployTx(stranger, 0, "y")); return err }},
		{"unknown contract", chain.ErrUnknownContract, func(c devAPI) error { _, err := c.Call(ctx, "nope", "get", nil); return err }},
		{"unknown method", chain.ErrUnknownMethod, func(c devAPI) error { _, err := c.Call(ctx, "zkapp", "nope", nil); return err }},
		{"call failed", chain.ErrCallFailed, func(c devAPI) error {
			_, err := c.Call(ctx, "zkapp", "get", json.RawMessage(`{"zkapp":"absent"}`))
			return err
		}},
		{"bad address", chain.ErrInvalidTx, func(c devAPI) error { _, err := c.Account(ctx, "nope"); return err }},
		{"faucet zero", chain.ErrInvalidTx, func(c devAPI) error { _, err := c.Faucet(ctx, stranger, 0); return err }},
		{"faucet over the per-call cap", devchain.ErrFaucetLimit, func(c devAPI) error { _, err := c.Faucet(ctx, stranger, 1e15+1); return err }},
		{"faucet over the per-call cap is invalid", chain.ErrInvalidTx, func(c devAPI) error { _, err := c.Faucet(ctx, stranger, 1e15+1); return err }},
		{"faucet over the per-account cap", devchain.ErrFaucetLimit, func(c devAPI) error { _, err := c.Faucet(ctx, e.dev, 1e15); return err }},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			inErr := tc.call(e.chain)
			httpErr := tc.call(e.client)
			if !errors.Is(inErr, tc.want) || !errors.Is(httpErr, tc.want) {
				t.Fatalf("in process %v, over HTTP %v; want both to wrap %v", inErr, httpErr, tc.want)
			}
			if inErr.Error() != httpErr.Error() {
				t.Fatalf("messages differ: in process %q, over HTTP %q", inErr, httpErr)
			}
		})
	}

	_, err := e.client.SetFaults(ctx, devchain.FaultUpdate{DropProb: ptr(-1.0)})
	var ae *devchain.APIError
	if !errors.As(err, &ae) || ae.Status != 422 || ae.Code != "invalid_faults" || ae.Message == "" {
		t.Fatalf("invalid fault update err = %#v", err)
	}
}

func TestHTTPSubscribeHeads(t *testing.T) {
	e := newEnv(t, devchain.Config{})
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	heads, err := e.client.SubscribeHeads(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var mined []chain.BlockHeader
	for range 2 {
		e.clk.Advance(time.Second)
		h, ok, err := e.client.Mine(ctx)
		if err != nil || !ok {
			t.Fatalf("mine: %v %v", ok, err)
		}
		mined = append(mined, h)
	}
	for _, want := range mined {
		select {
		case got, ok := <-heads:
			if !ok {
				t.Fatal("head channel closed early")
			}
			if got != want {
				t.Fatalf("head %+v, want %+v", got, want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("no head %d within 10s", want.Height)
		}
	}
	cancel()
	waitClosed(t, heads)

	// The stream ends when the chain closes.
	heads2, err := e.client.SubscribeHeads(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	e.chain.Close()
	waitClosed(t, heads2)
}

func waitClosed(t *testing.T, ch <-chan chain.BlockHeader) {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		select {
		case _, ok := <-ch:
			if !ok {
				return
			}
		case <-deadline:
			t.Fatal("head channel not closed within 10s")
		}
	}
}

// TestHTTPSubscribeRawStream reads the stream itself: the opening head, a
// head per block, and a keepalive comment on the chain's clock.
func TestHTTPSubscribeRawStream(t *testing.T) {
	e := newEnv(t, devchain.Config{})
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", e.srv.URL+"/v1/blocks/subscribe", nil)
	resp, err := e.srv.Client().Do(req) //nolint:bodyclose // closed by the defer below; bodyclose loses it to the reading goroutine
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/event-stream" {
		t.Fatalf("status %d, content type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	lines := make(chan string, 64)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			lines <- sc.Text()
		}
	}()
	next := func() string {
		t.Helper()
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatal("stream ended")
			}
			return l
		case <-time.After(10 * time.Second):
			t.Fatal("no line within 10s")
		}
		return ""
	}
	expectHead := func(height uint64) {
		t.Helper()
		if l := next(); l != "event: head" {
			t.Fatalf("line %q, want the head event", l)
		}
		var h chain.BlockHeader
		mustUnmarshal(t, []byte(strings.TrimPrefix(next(), "data: ")), &h)
		if h.Height != height {
			t.Fatalf("head %d, want %d", h.Height, height)
		}
		if l := next(); l != "" {
			t.Fatalf("line %q, want the end of the event", l)
		}
	}
	expectHead(0)
	if _, _, err := e.chain.Mine(ctx); err != nil {
		t.Fatal(err)
	}
	expectHead(1)
	// The keepalive timer is on the chain's virtual clock.
	eventually(t, func() bool { return e.clk.Pending() == 1 })
	e.clk.Advance(devchain.SSEKeepAlive)
	if l := next(); l != ": keepalive" {
		t.Fatalf("line %q, want a keepalive", l)
	}
	cancel()
	eventually(t, func() bool { return e.clk.Pending() == 0 }) // the handler stopped its timer
}

// eventually polls cond until it holds, failing after 10s.
func eventually(t *testing.T, cond func() bool) {
	t.Helper()
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	deadline := time.After(10 * time.Second)
	for !cond() {
		select {
		case <-tick.C:
		case <-deadline:
			t.Fatal("condition not met within 10s")
		}
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func mustUnmarshal(t *testing.T, b []byte, v any) {
	t.Helper()
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("unmarshal %s: %v", b, err)
	}
}

func ptr[T any](v T) *T { return &v }

// TestClientNonDevchainErrors checks errors that carry no chain code.
func TestClientNonDevchainErrors(t *testing.T) {
	plain := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "upstream down", http.StatusBadGateway)
	}))
	defer plain.Close()
	_, err := devchain.NewClient(plain.URL, nil).Head(t.Context())
	var ae *devchain.APIError
	if !errors.As(err, &ae) || ae.Status != 502 || ae.Code != "" || ae.Message != "upstream down" {
		t.Fatalf("err = %#v", err)
	}
	if chain.CodeOf(err) != "" {
		t.Fatalf("a plain error maps to chain code %q", chain.CodeOf(err))
	}

	e := newEnv(t, devchain.Config{})
	wrong := devchain.NewClient(e.srv.URL+"/nope", e.srv.Client())
	_, err = wrong.Head(t.Context())
	if !errors.As(err, &ae) || ae.Status != 404 || ae.Code != "route_not_found" {
		t.Fatalf("err = %#v", err)
	}
	if _, err := wrong.SubscribeHeads(t.Context()); !errors.As(err, &ae) || ae.Status != 404 {
		t.Fatalf("subscribe err = %#v", err)
	}
}
