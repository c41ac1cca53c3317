package dispatch

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/sequencer"
)

// RemoteWorker is the seed's remote worker: the dispatcher's three calls as
// JSON over HTTP to a worker that holds its sender's key.
//
//	POST {url}/dispatch   {"txnData":RawTxnData,"sender":Sender}                     → TxnResult
//	POST {url}/onSuccess  {"txnData":RawTxnData,"result":TxnResult,"sender":Sender}  → TxnResult
//	POST {url}/onFailure  {"txnData":RawTxnData,"result":TxnResult,"sender":Sender}  → TxnResult
//
// (the types are sequencer's). An error object with "permanent": true says
// no retry can change it: the transaction ends FAILED without retries. A
// non-2xx answer, a TxnResult with a non-null error, or no answer within the
// timeout counts as a dispatch error.
type RemoteWorker struct {
	url     string
	timeout time.Duration
	hc      *http.Client
}

// DefaultWorkerTimeout bounds a remote worker call.
const DefaultWorkerTimeout = 10 * time.Second

// NewRemoteWorker returns a worker client. timeout defaults to
// DefaultWorkerTimeout.
func NewRemoteWorker(url string, timeout time.Duration) *RemoteWorker {
	if timeout <= 0 {
		timeout = DefaultWorkerTimeout
	}
	return &RemoteWorker{url: url, timeout: timeout, hc: &http.Client{}}
}

// For returns the worker as the dispatcher of one type; MaxRetries comes from
// the type's in-process dispatcher when there is one, else 3.
func (w *RemoteWorker) For(typ string, local sequencer.Dispatcher) sequencer.Dispatcher {
	retries := sequencer.DefaultRemoteRetries
	if local != nil {
		retries = local.MaxRetries()
	}
	return remoteType{w: w, typ: typ, retries: retries}
}

type remoteType struct {
	w       *RemoteWorker
	typ     string
	retries int
}

func (r remoteType) Name() string    { return r.typ }
func (r remoteType) MaxRetries() int { return r.retries }

func (r remoteType) Dispatch(ctx context.Context, txn sequencer.RawTxnData, s sequencer.Sender) (sequencer.TxnResult, error) {
	res, err := r.w.call(ctx, "dispatch", map[string]any{"txnData": txn, "sender": s})
	if err == nil && res.Hash == "" {
		// Taken for sent, it could not be watched on chain: an error
		// without a hash keeps the nonce and makes a later nonce_too_low
		// ambiguous instead of a fresh nonce.
		err = fmt.Errorf("worker dispatch: a success without a hash")
	}
	return res, err
}

func (r remoteType) OnSuccess(ctx context.Context, txn sequencer.RawTxnData, res sequencer.TxnResult, s sequencer.Sender) (sequencer.TxnResult, error) {
	return r.w.call(ctx, "onSuccess", map[string]any{"txnData": txn, "result": res, "sender": s})
}

// OnFailure forwards the hook; the answer's error is what the worker records
// about the failure (the seed's onFailure fills it), not a failure of the
// hook.
func (r remoteType) OnFailure(ctx context.Context, txn sequencer.RawTxnData, res sequencer.TxnResult, s sequencer.Sender) (sequencer.TxnResult, error) {
	return r.w.onFailure(ctx, txn, res, s)
}

func (w *RemoteWorker) call(ctx context.Context, method string, body any) (sequencer.TxnResult, error) {
	var r sequencer.TxnResult
	if err := w.post(ctx, method, body, &r); err != nil {
		return sequencer.TxnResult{}, err
	}
	return r, workerError(method, r.Error)
}

// onFailure posts the onFailure hook; its answer's error is data.
func (w *RemoteWorker) onFailure(ctx context.Context, txn sequencer.RawTxnData, res sequencer.TxnResult, s sequencer.Sender) (sequencer.TxnResult, error) {
	var r sequencer.TxnResult
	if err := w.post(ctx, "onFailure", map[string]any{"txnData": txn, "result": res, "sender": s}, &r); err != nil {
		return sequencer.TxnResult{}, err
	}
	return r, nil
}

// post sends body as JSON to {url}/{method} within the timeout and decodes
// a 2xx answer into out; any other answer is an error.
func (w *RemoteWorker) post(ctx context.Context, method string, body, out any) error {
	ctx, cancel := context.WithTimeout(ctx, w.timeout)
	defer cancel()
	b, err := json.Marshal(body)
	if err != nil {
		return fmt.Errorf("worker %s: %w", method, err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, w.url+"/"+method, bytes.NewReader(b))
	if err != nil {
		return fmt.Errorf("worker %s: %w", method, err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := w.hc.Do(req)
	if err != nil {
		return fmt.Errorf("worker %s: %w", method, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return fmt.Errorf("worker %s: %w", method, err)
	}
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("worker %s: HTTP %d: %s", method, resp.StatusCode, sequencer.Excerpt(string(bytes.TrimSpace(raw))))
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return fmt.Errorf("worker %s: bad answer: %w", method, err)
	}
	return nil
}

// workerError is the error a worker's answer carries in its error field
// (nil when null or absent); "permanent": true in it marks it permanent,
// and a "code" that is a chain error's code makes it that chain error for
// errors.Is and chain.CodeOf (a nonce_too_low is acted on as the chain's).
func workerError(method string, e json.RawMessage) error {
	if len(e) == 0 || string(e) == "null" {
		return nil
	}
	var p struct {
		Permanent bool   `json:"permanent"`
		Code      string `json:"code"`
	}
	_ = json.Unmarshal(e, &p) // a string or another shape: no code, not permanent
	var err error = &codedError{msg: fmt.Sprintf("worker %s: %s", method, sequencer.Excerpt(string(e))), code: chain.ErrorByCode(p.Code)}
	if p.Permanent {
		err = sequencer.Permanent(err) // no retry can change it
	}
	return err
}

// codedError is a worker's error, with the chain error its code names (nil
// when none).
type codedError struct {
	msg  string
	code *chain.Error
}

func (e *codedError) Error() string { return e.msg }

func (e *codedError) Unwrap() error {
	if e.code == nil {
		return nil
	}
	return e.code
}
