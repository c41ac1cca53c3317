package distseq

import (
	"slices"
	"strings"
	"time"

	"github.com/ordolabs/ordo/internal/distseq/distseqpb"
	"google.golang.org/protobuf/proto"
)

// pending is an assured message awaiting its answer (seed 003, "Assured
// delivery"): resent every RetryInterval with a new message id and the
// same idempotency id until answered, or until its deadline for the ones
// that have one. The three patterns map onto it: a Command ends at
// Accepted or Rejected, a Request at Response or Error, a
// ReliableNotification at its Acknowledgement.
type pending struct {
	key      string
	to       NodeID
	contract string
	env      *distseqpb.Envelope
	next     time.Time
	until    time.Time // zero: until answered
	backoff  bool      // double the interval each resend (persisted distributions)
	interval time.Duration
	raw      []byte // a distribution's stored payload, for its acknowledged record
}

// sendAssured sends env to to now and keeps resending it under key until
// answered(key) or until (zero: no deadline).
func (c *Core) sendAssured(key string, to NodeID, env *distseqpb.Envelope, until time.Time) {
	p := &pending{key: key, to: to, contract: env.GetContractAddress(), env: env, next: c.now.Add(c.cfg.RetryInterval), until: until, interval: c.cfg.RetryInterval}
	c.assured[key] = p
	c.send(to, env, true)
}

// answered stops resending key; a second answer is a no-op (the patterns
// are idempotent on both sides).
func (c *Core) answered(key string) bool {
	if _, ok := c.assured[key]; !ok {
		return false
	}
	delete(c.assured, key)
	return true
}

// forget stops resending every key with prefix.
func (c *Core) forget(prefix string) {
	for k := range c.assured {
		if strings.HasPrefix(k, prefix) {
			delete(c.assured, k)
		}
	}
}

func (c *Core) resendDue() {
	var due []string
	for k, p := range c.assured {
		if !p.next.After(c.now) {
			due = append(due, k)
		}
	}
	slices.Sort(due)
	for _, k := range due {
		p := c.assured[k]
		if !p.until.IsZero() && !c.now.Before(p.until) {
			delete(c.assured, k)
			continue
		}
		env := proto.Clone(p.env).(*distseqpb.Envelope)
		env.MessageId = c.nextID("m")
		if p.backoff && p.interval < 32*c.cfg.RetryInterval {
			p.interval *= 2
		}
		p.next = c.now.Add(p.interval)
		c.send(p.to, env, true)
	}
}

// reply sends a non-assured answer to a message (its correlation id set).
func (c *Core) reply(to NodeID, req *distseqpb.Envelope, fill func(*distseqpb.Envelope)) {
	env := c.envelope(req.GetContractAddress(), req.GetMessageId())
	fill(env)
	c.send(to, env, false)
}
