package devchain

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/ordolabs/ordo/internal/chain"
	"github.com/ordolabs/ordo/internal/httpjson"
)

// APIError is an error answer of the devchain HTTP API whose code is not one
// of the chain's sentinel codes (those are returned as the sentinel, wrapped).
type APIError struct {
	// Status is the HTTP status code.
	Status int
	// Code is the stable error code ("bad_json", "invalid_faults", ...), or ""
	// when the body was not a devchain error document.
	Code string
	// Message is the server's sentence.
	Message string
}

// Error returns "devchain api: HTTP <status> <code>: <message>" (without
// the code when there is none).
func (e *APIError) Error() string {
	if e.Code == "" {
		return fmt.Sprintf("devchain api: HTTP %d: %s", e.Status, e.Message)
	}
	return fmt.Sprintf("devchain api: HTTP %d %s: %s", e.Status, e.Code, e.Message)
}

// Client is a devchain reached over its HTTP API (NewHandler). It implements
// chain.Chain, chain.HeadSubscriber, chain.BlockReader and devchain's dev
// controls, with the same errors as the in-process *Chain: a chain error is
// returned wrapping its sentinel, so errors.Is(err, chain.ErrNonceTooLow)
// holds whatever the transport. It is safe for concurrent use.
type Client struct {
	base   string
	hc     *http.Client // requests
	stream *http.Client // the head stream: no overall timeout
}

var (
	_ chain.Chain          = (*Client)(nil)
	_ chain.HeadSubscriber = (*Client)(nil)
	_ chain.BlockReader    = (*Client)(nil)
)

// openingHeadTimeout bounds the wait for the head stream's first event.
const openingHeadTimeout = 30 * time.Second

// maxErrorBody bounds how much of an error answer the client reads.
const maxErrorBody = 64 << 10

// NewClient returns a client of the devchain API at baseURL (for example
// "http://127.0.0.1:8545"). With a nil hc it uses its own transport with
// connect, header and request timeouts; the head stream has no request
// timeout (it is ended by its context). With hc, requests use hc and the
// stream uses a copy of hc without its Timeout.
func NewClient(baseURL string, hc *http.Client) *Client {
	if hc == nil {
		tr := &http.Transport{
			Proxy:                 http.ProxyFromEnvironment,
			DialContext:           (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
			TLSHandshakeTimeout:   10 * time.Second,
			ResponseHeaderTimeout: 30 * time.Second,
			IdleConnTimeout:       90 * time.Second,
			MaxIdleConnsPerHost:   16,
			ForceAttemptHTTP2:     true,
		}
		hc = &http.Client{Transport: tr, Timeout: 60 * time.Second}
	}
	stream := *hc
	stream.Timeout = 0
	return &Client{base: strings.TrimRight(baseURL, "/"), hc: hc, stream: &stream}
}

// CloseIdleConnections closes the client's idle connections.
func (c *Client) CloseIdleConnections() { c.hc.CloseIdleConnections() }

// do sends a request with an optional JSON body and decodes a 200 answer into
// out (when non-nil). Any other answer becomes an error (see decodeError).
func (c *Client) do(ctx context.Context, method, path string, body, out any) error {
	var rd io.Reader
	if body != nil {
		b, err := marshalCompact(body)
		if err != nil {
			return fmt.Errorf("devchain client: %s %s: encoding the request: %w", method, path, err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, rd)
	if err != nil {
		return fmt.Errorf("devchain client: %s %s: %w", method, path, err)
	}
	req.Header.Set("Accept", "application/json")
	if body != nil || httpjson.Mutating(method) {
		// Every POST and PUT, a body or none (POST /v1/dev/mine): the
		// server refuses one without it (415 unsupported_media_type).
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.hc.Do(req)
	if err != nil {
		return fmt.Errorf("devchain client: %s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return decodeError(resp)
	}
	if out == nil {
		_, _ = io.Copy(io.Discard, resp.Body)
		return nil
	}
	if err := json.NewDecoder(resp.Body).Decode(out); err != nil {
		return fmt.Errorf("devchain client: %s %s: decoding the answer: %w", method, path, err)
	}
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, maxErrorBody)) // let the connection be reused
	return nil
}

// marshalCompact encodes v without HTML escaping, so a transaction's encoded
// size stays close to its fields' sizes.
func marshalCompact(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// decodeError turns a non-200 answer into an error: the chain sentinel for a
// chain code, an *APIError otherwise.
func decodeError(resp *http.Response) error {
	b, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
	var eb httpjson.ErrorBody
	if err := json.Unmarshal(b, &eb); err != nil || eb.Error.Code == "" {
		msg := strings.TrimSpace(string(b))
		if msg == "" {
			msg = http.StatusText(resp.StatusCode)
		}
		return &APIError{Status: resp.StatusCode, Message: msg}
	}
	if eb.Error.Code == ErrFaucetLimit.Code {
		return &faucetLimitError{strings.TrimPrefix(eb.Error.Message, ErrFaucetLimit.Msg+": ")}
	}
	if s := chain.ErrorByCode(eb.Error.Code); s != nil {
		// The server's message starts with the sentinel's own text: keep
		// only what it adds, so the error reads as it does in process.
		detail := strings.TrimPrefix(strings.TrimPrefix(eb.Error.Message, s.Msg), ": ")
		if detail == "" {
			return fmt.Errorf("%w", s)
		}
		return fmt.Errorf("%w: %s", s, detail)
	}
	return &APIError{Status: resp.StatusCode, Code: eb.Error.Code, Message: eb.Error.Message}
}

// Head returns the newest block's header.
func (c *Client) Head(ctx context.Context) (chain.BlockHeader, error) {
	var h chain.BlockHeader
	err := c.do(ctx, http.MethodGet, "/v1/head", nil, &h)
	return h, err
}

// Identity implements chain.Identifier: the devchain's GET /v1/identity.
func (c *Client) Identity(ctx context.Context) (chain.Identity, error) {
	var id chain.Identity
	if err := c.do(ctx, http.MethodGet, "/v1/identity", nil, &id); err != nil {
		return chain.Identity{}, err
	}
	if err := id.Validate(); err != nil {
		return chain.Identity{}, fmt.Errorf("devchain %s: %w", c.base, err)
	}
	return id, nil
}

// SendTx submits a transaction. Its form is checked locally first, as the
// in-process chain does.
func (c *Client) SendTx(ctx context.Context, tx chain.Tx) (chain.Hash, error) {
	if err := tx.Validate(); err != nil {
		return "", err
	}
	if err := checkTxInput(&tx); err != nil {
		return "", err
	}
	var out SendTxResponse
	if err := c.do(ctx, http.MethodPost, "/v1/tx", tx, &out); err != nil {
		return "", err
	}
	return out.Hash, nil
}

// TxStatus reports a transaction's status. A hash that is not 64 lowercase
// hex characters is unknown, as it is to the in-process chain.
func (c *Client) TxStatus(ctx context.Context, h chain.Hash) (chain.TxStatus, error) {
	if !chain.IsHash(h) {
		return chain.TxStatus{Hash: h, State: chain.TxUnknown}, nil
	}
	var st chain.TxStatus
	err := c.do(ctx, http.MethodGet, "/v1/tx/"+string(h), nil, &st)
	return st, err
}

// Events returns up to limit events after the cursor (limit <= 0 or over
// 1000 means 1000).
func (c *Client) Events(ctx context.Context, after uint64, limit int) ([]chain.Event, error) {
	if limit <= 0 || limit > MaxEventsPerRequest {
		limit = MaxEventsPerRequest
	}
	q := url.Values{"cursor": {strconv.FormatUint(after, 10)}, "limit": {strconv.Itoa(limit)}}
	var out EventsResponse
	if err := c.do(ctx, http.MethodGet, "/v1/events?"+q.Encode(), nil, &out); err != nil {
		return nil, err
	}
	if len(out.Events) == 0 {
		return nil, nil
	}
	return out.Events, nil
}

// Call runs a read-only contract method.
func (c *Client) Call(ctx context.Context, contract, method string, args json.RawMessage) (json.RawMessage, error) {
	if len(args) > 0 && !json.Valid(args) {
		return nil, fmt.Errorf("%w: args are not valid JSON", chain.ErrCallFailed)
	}
	var out CallResponse
	if err := c.do(ctx, http.MethodPost, "/v1/call", CallRequest{Contract: contract, Method: method, Args: args}, &out); err != nil {
		return nil, err
	}
	if string(out.Result) == "null" {
		return nil, nil
	}
	return out.Result, nil
}

// Account returns an account's nonce and balance.
func (c *Client) Account(ctx context.Context, addr chain.Address) (chain.Account, error) {
	if err := chain.ValidateAddress(addr); err != nil {
		return chain.Account{}, fmt.Errorf("%w: %w", chain.ErrInvalidTx, err)
	}
	var a chain.Account
	err := c.do(ctx, http.MethodGet, "/v1/accounts/"+string(addr), nil, &a)
	return a, err
}

// MinFee returns the minimum fee in force.
func (c *Client) MinFee(ctx context.Context) (uint64, error) {
	var out MinFeeResponse
	err := c.do(ctx, http.MethodGet, "/v1/minfee", nil, &out)
	return out.MinFee, err
}

// Blocks returns the blocks with heights in [from, to], at most 1000, as the
// in-process chain does.
func (c *Client) Blocks(ctx context.Context, from, to uint64) ([]chain.Block, error) {
	if to < from {
		return nil, nil
	}
	q := url.Values{"from": {strconv.FormatUint(from, 10)}, "to": {strconv.FormatUint(to, 10)}}
	var out BlocksResponse
	if err := c.do(ctx, http.MethodGet, "/v1/blocks?"+q.Encode(), nil, &out); err != nil {
		return nil, err
	}
	if len(out.Blocks) == 0 {
		return nil, nil
	}
	return out.Blocks, nil
}

// Mine produces one block now; ok is false (and hdr zero) while a stall is
// in force.
func (c *Client) Mine(ctx context.Context) (hdr chain.BlockHeader, ok bool, err error) {
	var out MineResponse
	if err := c.do(ctx, http.MethodPost, "/v1/dev/mine", nil, &out); err != nil {
		return chain.BlockHeader{}, false, err
	}
	if !out.Mined {
		return chain.BlockHeader{}, false, nil
	}
	return out.Head, true, nil
}

// Faults returns the fault knobs in force.
func (c *Client) Faults(ctx context.Context) (FaultState, error) {
	var fs FaultState
	err := c.do(ctx, http.MethodGet, "/v1/faults", nil, &fs)
	return fs, err
}

// SetFaults applies a fault update; an invalid one is refused (an *APIError
// with code "invalid_faults") and changes nothing.
func (c *Client) SetFaults(ctx context.Context, u FaultUpdate) (FaultState, error) {
	var fs FaultState
	err := c.do(ctx, http.MethodPut, "/v1/faults", u, &fs)
	return fs, err
}

// Faucet credits amount to addr (dev mode only).
func (c *Client) Faucet(ctx context.Context, addr chain.Address, amount uint64) (chain.Account, error) {
	var a chain.Account
	err := c.do(ctx, http.MethodPost, "/v1/faucet", FaucetRequest{Address: addr, Amount: amount}, &a)
	return a, err
}

// DevAccounts lists the dev accounts (dev mode only).
func (c *Client) DevAccounts(ctx context.Context) ([]DevAccount, error) {
	var out DevAccountsResponse
	if err := c.do(ctx, http.MethodGet, "/v1/dev/accounts", nil, &out); err != nil {
		return nil, err
	}
	return out.Accounts, nil
}

// SubscribeHeads opens the head stream and returns a channel of the heads
// produced after it returns (the stream's opening head, which the server
// sends to confirm the subscription, is not forwarded: the channel carries
// what the in-process chain's would). The channel is closed when ctx ends or
// the stream breaks (for example when the chain closes).
func (c *Client) SubscribeHeads(ctx context.Context) (<-chan chain.BlockHeader, error) {
	const path = "/v1/blocks/subscribe"
	sctx, cancel := context.WithCancel(ctx)
	req, err := http.NewRequestWithContext(sctx, http.MethodGet, c.base+path, nil)
	if err != nil {
		cancel()
		return nil, fmt.Errorf("devchain client: GET %s: %w", path, err)
	}
	req.Header.Set("Accept", "text/event-stream")
	resp, err := c.stream.Do(req) //nolint:bodyclose // closed on each error path below, else by the stream goroutine
	if err != nil {
		cancel()
		return nil, fmt.Errorf("devchain client: GET %s: %w", path, err)
	}
	if resp.StatusCode != http.StatusOK {
		err := decodeError(resp)
		resp.Body.Close()
		cancel()
		return nil, err
	}
	sr := newSSEReader(resp.Body)
	// The first event is the head at subscription time: once it is here the
	// server is subscribed, and no later block can be missed. The server
	// sends it at once; a stream that does not is given up (the wall clock is
	// right here: this bounds a network wait, not chain time).
	giveUp := time.AfterFunc(openingHeadTimeout, cancel)
	_, err = sr.nextHead()
	giveUp.Stop()
	if err != nil {
		resp.Body.Close()
		cancel()
		return nil, fmt.Errorf("devchain client: GET %s: reading the opening head: %w", path, err)
	}
	ch := make(chan chain.BlockHeader, 64)
	go func() {
		defer close(ch)
		defer cancel()
		defer resp.Body.Close()
		for {
			h, err := sr.nextHead()
			if err != nil {
				return
			}
			select {
			case ch <- h:
			case <-sctx.Done():
				return
			}
		}
	}()
	return ch, nil
}

// sseReader reads server-sent events carrying block headers.
type sseReader struct {
	sc *bufio.Scanner
}

func newSSEReader(r io.Reader) *sseReader {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), 1<<20)
	return &sseReader{sc: sc}
}

// nextHead returns the next `head` event's header, skipping comments and
// other event types.
func (r *sseReader) nextHead() (chain.BlockHeader, error) {
	var event string
	var data []byte
	for r.sc.Scan() {
		line := r.sc.Text()
		switch {
		case line == "":
			if data != nil && (event == "" || event == "head") {
				var h chain.BlockHeader
				if err := json.Unmarshal(data, &h); err != nil {
					return chain.BlockHeader{}, fmt.Errorf("bad head event: %w", err)
				}
				return h, nil
			}
			event, data = "", nil
		case strings.HasPrefix(line, ":"):
			// comment (keepalive)
		default:
			field, value, _ := strings.Cut(line, ":")
			value = strings.TrimPrefix(value, " ")
			switch field {
			case "event":
				event = value
			case "data":
				if data != nil {
					data = append(data, '\n')
				}
				data = append(data, value...)
			}
		}
	}
	if err := r.sc.Err(); err != nil {
		return chain.BlockHeader{}, err
	}
	return chain.BlockHeader{}, io.ErrUnexpectedEOF
}
