package processor

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"time"

	"github.com/ordolabs/ordo/internal/sequencer"
)

// perform runs one effect and returns the input that answers it.
func (n *Node) perform(ctx context.Context, e Effect) Input {
	switch e.Kind {
	case EffectSubmit:
		return n.submit(ctx, e)
	case EffectDeliver:
		err := n.deliver(ctx, e)
		if err != nil {
			n.log.Warn("processor: callback delivery failed; retrying with backoff", "processor", e.Processor,
				"batch", e.BatchID, "seq", e.Seq, "err", err)
			return Delivered(time.Time{}, e.Processor, e.Seq, false, err.Error())
		}
		return Delivered(time.Time{}, e.Processor, e.Seq, true, "")
	}
	panic(fmt.Sprintf("processor: unknown effect %v", e.Kind))
}

// submit hands an execution to the sequencer under its execution id as
// idempotency key: a second submission answers the first record.
func (n *Node) submit(ctx context.Context, e Effect) Input {
	res, err := n.cfg.Sequencer.Submit(ctx, []sequencer.Intake{{Queue: e.Queue, Type: SubmitType, Data: e.Data,
		IdempotencyKey: e.Exec, Principal: sequencer.PrincipalProcessor}})
	if err != nil {
		permanent := errors.Is(err, sequencer.ErrInvalid) || errors.Is(err, sequencer.ErrTypeNotAllowed) ||
			errors.Is(err, sequencer.ErrIdempotencyConflict)
		n.log.Warn("processor: submitting an execution failed", "exec", e.Exec, "permanent", permanent, "err", err)
		return SubmitFailed(time.Time{}, e.Exec, err.Error(), permanent)
	}
	t := res[0].Transaction
	return Submitted(time.Time{}, e.Exec, t.UID, t.State, t.Error)
}

// maxAnswer is how much of a receiver's answer is read (and quoted in an
// error).
const maxAnswer = 512

// deliver POSTs a callback with its Idempotency-Key; a 2xx delivers it.
func (n *Node) deliver(ctx context.Context, e Effect) error {
	ctx, cancel := context.WithTimeout(ctx, n.cfg.DeliveryTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.URL, bytes.NewReader(e.Body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Idempotency-Key", e.Key)
	resp, err := n.cfg.HTTP.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	answer, _ := io.ReadAll(io.LimitReader(resp.Body, maxAnswer))
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("callback receiver answered %s: %s", resp.Status, bytes.TrimSpace(answer))
	}
	return nil
}
