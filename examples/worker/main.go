package main

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/chain/devchain"
)

// The protocol's bodies, as the node sends them (unknown fields are
// ignored, so that a node that adds some still reaches this worker).

// TxnData is the transaction the node hands over: its uid (the chain
// transaction's memo must be it: that is how the node and an audit find it
// on chain), its type and its data as submitted.
type TxnData struct {
	UID  string          `json:"uid"`
	Type string          `json:"type"`
	Data json.RawMessage `json:"data"`
}

// Sender is the account the attempt must use, with the nonce and fee it
// must carry: a retry of an attempt that never landed comes with the same
// nonce and a higher fee, so that at most one of them can land.
type Sender struct {
	AccountID string `json:"accountId"`
	Queue     string `json:"queue"`
	Retries   int    `json:"retries"`
	Nonce     uint64 `json:"nonce"`
	Fee       uint64 `json:"fee,string"` // a decimal string (wei per gas on an EVM chain)
}

// TxnResult is every call's answer (and the hooks' "result"): the hash of
// the chain transaction, what onSuccess records, and an error.
type TxnResult struct {
	Hash  string          `json:"hash"`
	Done  json.RawMessage `json:"done,omitempty"`
	Error json.RawMessage `json:"error,omitempty"`
}

// Request is the body of POST /dispatch (txnData, sender) and of POST
// /onSuccess and /onFailure (with result).
type Request struct {
	TxnData TxnData    `json:"txnData"`
	Sender  Sender     `json:"sender"`
	Result  *TxnResult `json:"result,omitempty"`
}

// BuildAnswer is the answer of POST /build (a type's worker): the unsigned
// transaction of the attempt, or an error.
type BuildAnswer struct {
	Tx    *chain.Tx       `json:"tx,omitempty"`
	Error json.RawMessage `json:"error,omitempty"`
}

// WorkerError is the error object of an answer. Permanent says no retry
// can change it: the node ends the transaction FAILED without retries.
type WorkerError struct {
	Message   string `json:"message"`
	Code      string `json:"code,omitempty"`
	Permanent bool   `json:"permanent,omitempty"`
}

// Worker answers the node's calls for one sender.
type Worker struct {
	key   ed25519.PrivateKey
	addr  chain.Address
	chain chain.Chain
	log   *slog.Logger
}

// NewWorker returns a worker that signs with key and sends to c.
func NewWorker(key ed25519.PrivateKey, c chain.Chain, log *slog.Logger) *Worker {
	if log == nil {
		log = slog.Default()
	}
	return &Worker{key: key, addr: chain.KeyAddress(key), chain: c, log: log}
}

// Address is the sender's address: the node's config names it.
func (w *Worker) Address() chain.Address { return w.addr }

// maxBody bounds a request body.
const maxBody = 1 << 20

// Handler serves POST /dispatch, /onSuccess, /onFailure (a TxnResult
// each) and /build (a BuildAnswer). Each answers 200, its error set when
// the call failed; a body it cannot read is 400 (which the node takes as an
// error, like any non-2xx answer).
func (w *Worker) Handler() http.Handler {
	mux := http.NewServeMux()
	for path, call := range map[string]func(context.Context, Request) any{
		"POST /dispatch":  func(ctx context.Context, r Request) any { return w.Dispatch(ctx, r) },
		"POST /onSuccess": func(ctx context.Context, r Request) any { return w.OnSuccess(ctx, r) },
		"POST /onFailure": func(ctx context.Context, r Request) any { return w.OnFailure(ctx, r) },
		"POST /build":     func(_ context.Context, r Request) any { return BuildCall(r) },
	} {
		mux.HandleFunc(path, func(rw http.ResponseWriter, r *http.Request) {
			var req Request
			b, err := io.ReadAll(http.MaxBytesReader(rw, r.Body, maxBody))
			if err == nil {
				err = json.Unmarshal(b, &req)
			}
			if err != nil {
				writeJSON(rw, http.StatusBadRequest, map[string]WorkerError{"error": {Message: "bad request body: " + err.Error()}})
				return
			}
			writeJSON(rw, http.StatusOK, call(r.Context(), req))
		})
	}
	return mux
}

func writeJSON(rw http.ResponseWriter, status int, v any) {
	rw.Header().Set("Content-Type", "application/json")
	rw.WriteHeader(status)
	_ = json.NewEncoder(rw).Encode(v)
}

// fail is an answer with an error (and the hash, when there is one).
func fail(hash string, e WorkerError) TxnResult {
	b, _ := json.Marshal(e)
	return TxnResult{Hash: hash, Error: b}
}

// Dispatch builds the transaction, signs it with the nonce and fee given,
// sends it and answers its hash.
//
// A repeated dispatch (the same uid, nonce and fee: the node asks again
// after a restart or a lost answer) builds the same transaction, whose
// ed25519 signature and hash are the same: if the chain already knows the
// hash, the worker answers it without sending again. A send the chain
// refuses is answered with the error and the hash all the same, so that
// the node asks the chain about that hash rather than wonder whether the
// attempt went out unreported.
func (w *Worker) Dispatch(ctx context.Context, req Request) TxnResult {
	if req.Sender.AccountID != string(w.addr) {
		return fail("", WorkerError{Message: fmt.Sprintf("this worker holds the key of %s, not of %s", w.addr, req.Sender.AccountID), Permanent: true})
	}
	tx, err := Build(req.TxnData, req.Sender)
	if err != nil {
		// Building is deterministic: no retry can change it.
		return fail("", WorkerError{Message: err.Error(), Permanent: true})
	}
	tx.Sign(w.key)
	h := tx.Hash()
	if st, err := w.chain.TxStatus(ctx, h); err == nil && (st.State == chain.TxPending || st.State == chain.TxIncluded) {
		w.log.Info("dispatch again: already sent", "uid", req.TxnData.UID, "nonce", tx.Nonce, "fee", tx.Fee, "hash", h, "state", st.State)
		return TxnResult{Hash: string(h)}
	}
	if _, err := w.chain.SendTx(ctx, tx); err != nil {
		code := chain.CodeOf(err)
		w.log.Warn("dispatch: send failed", "uid", req.TxnData.UID, "nonce", tx.Nonce, "fee", tx.Fee, "hash", h, "code", code, "err", err)
		return fail(string(h), WorkerError{Message: err.Error(), Code: code, Permanent: permanentCode(code)})
	}
	w.log.Info("dispatched", "uid", req.TxnData.UID, "type", req.TxnData.Type, "queue", req.Sender.Queue, "nonce", tx.Nonce, "fee", tx.Fee, "hash", h)
	return TxnResult{Hash: string(h)}
}

// BuildCall answers POST /build: the unsigned transaction, built as
// Dispatch builds it. The node sets its from, nonce and fee to the sender's
// it gave, signs it with that sender's key, commits its hash and sends it.
// A build error is permanent: building is deterministic.
func BuildCall(req Request) BuildAnswer {
	tx, err := Build(req.TxnData, req.Sender)
	if err != nil {
		b, _ := json.Marshal(WorkerError{Message: err.Error(), Permanent: true})
		return BuildAnswer{Error: b}
	}
	return BuildAnswer{Tx: &tx}
}

// permanentCode reports whether a chain error code means the transaction
// can never be accepted as built (a retry only changes its fee): those
// errors end the transaction FAILED at once. Every other error (a nonce
// the chain has moved past, a fee under the minimum, a full mempool, a
// rejection, no answer) may pass on a retry.
func permanentCode(code string) bool {
	switch code {
	case chain.ErrInvalidTx.Code, chain.ErrBadSignature.Code, chain.ErrUnknownContract.Code, chain.ErrUnknownMethod.Code:
		return true
	}
	return false
}

// OnSuccess runs once the transaction is DONE: it reads the zkApp's state
// into done, which the node stores in the record's result.
func (w *Worker) OnSuccess(ctx context.Context, req Request) TxnResult {
	res := TxnResult{}
	if req.Result != nil {
		res = *req.Result
	}
	zk, err := zkAppOf(req.TxnData, req.Sender)
	if err != nil {
		return fail(res.Hash, WorkerError{Message: err.Error()})
	}
	args, _ := json.Marshal(map[string]string{"zkapp": zk})
	st, err := w.chain.Call(ctx, "zkapp", "get", args)
	if err != nil {
		return fail(res.Hash, WorkerError{Message: err.Error(), Code: chain.CodeOf(err)})
	}
	w.log.Info("done", "uid", req.TxnData.UID, "hash", res.Hash)
	res.Done = st
	return res
}

// OnFailure runs once the transaction is FAILED; result.error carries the
// node's reason ({"reason": "..."}). The worker logs it and answers the
// hash without an error: the node takes an answer with an error as the hook
// failing (it records it as the result's hookError), and the record keeps
// the reason in its own error field.
func (w *Worker) OnFailure(_ context.Context, req Request) TxnResult {
	res := TxnResult{}
	if req.Result != nil {
		res = *req.Result
	}
	w.log.Warn("failed", "uid", req.TxnData.UID, "hash", res.Hash, "reason", string(res.Error))
	return TxnResult{Hash: res.Hash}
}

// zkMethods is the zkApp call of each of the seed's five types, as the
// node's built-in dispatcher makes it.
var zkMethods = map[string]struct{ method, key, kind string }{
	"CREATE_CLAIM_VOTING_ACCOUNT":   {"deploy", "", "claim"},
	"SEND_CLAIM_VOTE":               {"append", "votes", ""},
	"CREATE_VOTING_BATCHES_ACCOUNT": {"deploy", "", "batches"},
	"RECEIVE_VOTES_BATCH":           {"append", "batches", ""},
	"COMMIT_ALL_VOTING_BATCHES":     {"set", "committed", ""},
}

// zkAppOf is the zkApp a transaction changes: data.zkapp when set, else its
// queue.
func zkAppOf(txn TxnData, s Sender) (string, error) {
	var data struct {
		ZkApp *string `json:"zkapp"`
	}
	if len(txn.Data) > 0 {
		if err := json.Unmarshal(txn.Data, &data); err != nil {
			return "", fmt.Errorf("%s: data must be a JSON object with an optional string zkapp: %w", txn.Type, err)
		}
	}
	if data.ZkApp != nil {
		return *data.ZkApp, nil
	}
	return s.Queue, nil
}

// Build makes the unsigned chain transaction of an attempt: the zkApp call
// of the type, from the sender, with the nonce and fee given and the uid as
// memo. It is deterministic, so its errors are permanent.
func Build(txn TxnData, s Sender) (chain.Tx, error) {
	m, ok := zkMethods[txn.Type]
	if !ok {
		return chain.Tx{}, fmt.Errorf("this worker has no call for type %q", txn.Type)
	}
	var data map[string]json.RawMessage
	if len(txn.Data) > 0 {
		if err := json.Unmarshal(txn.Data, &data); err != nil {
			return chain.Tx{}, fmt.Errorf("%s: data must be a JSON object: %w", txn.Type, err)
		}
	}
	zk, err := zkAppOf(txn, s)
	if err != nil {
		return chain.Tx{}, err
	}
	args := map[string]any{"zkapp": zk}
	if m.method == "deploy" {
		state := map[string]json.RawMessage{}
		for k, v := range data {
			if k != "zkapp" {
				state[k] = v
			}
		}
		state["kind"] = json.RawMessage(fmt.Sprintf("%q", m.kind))
		args["state"] = state
	} else {
		value := txn.Data
		if len(value) == 0 {
			value = json.RawMessage("{}")
		}
		args["key"], args["value"] = m.key, value
	}
	b, err := json.Marshal(args)
	if err != nil {
		return chain.Tx{}, err
	}
	return chain.Tx{From: chain.Address(s.AccountID), Nonce: s.Nonce, Fee: s.Fee, Contract: "zkapp", Method: m.method, Args: b, Memo: txn.UID}, nil
}

// readKey reads a hex ed25519 seed (the node's keyFile format).
func readKey(path string) (ed25519.PrivateKey, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	seed, err := hex.DecodeString(strings.TrimSpace(string(b)))
	if err != nil || len(seed) != ed25519.SeedSize {
		return nil, fmt.Errorf("key file %s: want the hex of a %d-byte ed25519 seed", path, ed25519.SeedSize)
	}
	return ed25519.NewKeyFromSeed(seed), nil
}

// newKey writes a fresh hex seed to path, which must not exist.
func newKey(path string) (ed25519.PrivateKey, error) {
	seed := make([]byte, ed25519.SeedSize)
	if _, err := rand.Read(seed); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, err
	}
	if _, err := fmt.Fprintln(f, hex.EncodeToString(seed)); err != nil {
		f.Close()
		return nil, err
	}
	return ed25519.NewKeyFromSeed(seed), f.Close()
}

// fund tops the worker's account up from a devchain's faucet (dev mode
// only) when its balance is under amount.
func fund(ctx context.Context, c *devchain.Client, addr chain.Address, amount uint64) error {
	acct, err := c.Account(ctx, addr)
	if err != nil {
		return err
	}
	if acct.Balance >= amount {
		return nil
	}
	_, err = c.Faucet(ctx, addr, amount)
	return err
}

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "worker:", err)
		os.Exit(1)
	}
}

func run() error {
	var (
		listen   = flag.String("listen", "127.0.0.1:7080", "HTTP address the node calls")
		chainURL = flag.String("chain", "http://127.0.0.1:7545", "URL of the devchain to send to")
		keyFile  = flag.String("key", "", "file holding the hex of the sender's 32-byte ed25519 seed")
		created  = flag.String("new-key", "", "write a new key to this file, print its address and exit")
		amount   = flag.Uint64("fund", 0, "at start, fund the sender from the devchain's faucet when its balance is under this (0: never)")
	)
	flag.Parse()
	if *created != "" {
		k, err := newKey(*created)
		if err != nil {
			return err
		}
		fmt.Println(chain.KeyAddress(k))
		return nil
	}
	if *keyFile == "" {
		return errors.New("--key FILE is required (make one with --new-key FILE)")
	}
	key, err := readKey(*keyFile)
	if err != nil {
		return err
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	dc := devchain.NewClient(*chainURL, nil)
	w := NewWorker(key, dc, log)
	if *amount > 0 {
		if err := fund(ctx, dc, w.Address(), *amount); err != nil {
			return fmt.Errorf("fund %s from the faucet of %s: %w", w.Address(), *chainURL, err)
		}
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: w.Handler(), ReadHeaderTimeout: 10 * time.Second}
	go func() {
		<-ctx.Done()
		sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		_ = srv.Shutdown(sctx)
	}()
	log.Info("worker listening", "addr", ln.Addr().String(), "address", w.Address(), "chain", *chainURL)
	if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}
