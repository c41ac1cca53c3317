package main

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/ordolabs/ordo/client"
)

// defaultWaitTimeout is --wait-timeout's default.
const defaultWaitTimeout = 2 * time.Minute

// reconnectPause is how long --wait waits before it opens the change
// stream again after it ended.
const reconnectPause = time.Second

// errTxFailed is the error of tx send --wait when the intent ended FAILED.
var errTxFailed = errors.New("the transaction ended FAILED")

// streamClient is f's client without a request timeout: a change stream
// lasts as long as its context.
func (f *clientFlags) streamClient() *client.Client {
	var opts []client.Option
	if tok := f.bearer(); tok != "" {
		opts = append(opts, client.WithToken(tok))
	}
	if ca := f.ca(); ca != "" {
		opts = append(opts, client.WithCAFile(ca))
	}
	return client.New(f.node, &http.Client{}, opts...)
}

// finished reports whether a state is final.
func finished(s client.TxState) bool { return s == client.StateDone || s == client.StateFailed }

// sendAndWait sends in and waits, until ctx ends, for its record to end
// DONE or FAILED: it opens the queue's change stream first (so that a
// fast DONE is not missed), sends once the node accepted it, and follows
// the stream, reopening it from the last change read when it ends; after
// each reopening it GETs the record, in case the end fell in the gap. It
// returns the final record, with errTxFailed when it is FAILED.
func sendAndWait(ctx context.Context, c, sc *client.Client, in client.Intake) (client.Transaction, bool, error) {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	opened := make(chan struct{}, 1)
	ended := make(chan client.Change)
	refused := make(chan error, 1)
	go func() {
		// From the feed's tail: what is to come, not the queue's history;
		// a reopening resumes after the last change read (or at the tail
		// again, the record then read in case its end fell in the gap).
		after := client.ChangesNow
		for {
			err := sc.Changes(ctx, client.ChangesOptions{Queue: in.Queue, After: after, Opened: func() {
				select {
				case opened <- struct{}{}:
				default:
				}
			}}, func(ch client.Change) error {
				after = ch.ID
				if !finished(ch.To) {
					return nil
				}
				select {
				case ended <- ch:
					return nil
				case <-ctx.Done():
					return ctx.Err()
				}
			})
			if ctx.Err() != nil {
				return
			}
			var ae *client.APIError
			if errors.As(err, &ae) { // refused (a token without read, say): final
				refused <- err
				return
			}
			t := time.NewTimer(reconnectPause)
			select {
			case <-ctx.Done():
				t.Stop()
				return
			case <-t.C:
			}
		}
	}()
	select {
	case <-opened:
	case err := <-refused:
		return client.Transaction{}, false, fmt.Errorf("opening the change stream: %w", err)
	case <-ctx.Done():
		return client.Transaction{}, false, fmt.Errorf("opening the change stream: %w", ctx.Err())
	}
	tx, created, err := c.Send(ctx, in)
	if err != nil {
		return tx, created, err
	}
	for !finished(tx.State) {
		select {
		case ch := <-ended:
			if ch.UID != tx.UID {
				continue
			}
		case <-opened: // reopened: the end may have fallen in the gap
		case err := <-refused:
			return tx, created, fmt.Errorf("following the change stream: %w", err)
		case <-ctx.Done():
			return tx, created, fmt.Errorf("transaction %s is still %s: %w", tx.UID, tx.State, ctx.Err())
		}
		if tx, _, err = c.Get(ctx, tx.UID); err != nil {
			return tx, created, err
		}
	}
	if tx.State == client.StateFailed {
		return tx, created, fmt.Errorf("%w: %s: %s", errTxFailed, tx.UID, tx.Error)
	}
	return tx, created, nil
}
