package sequencer

import (
	"context"
	"math/big"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/ordolabs/ordo/internal/chain"
)

// DefaultSenderPoll is how often the node reads its senders' accounts for
// their metrics (Config.SenderPoll).
const DefaultSenderPoll = 15 * time.Second

// LowBalanceAttempts is how many attempts at the fee cap a sender's balance
// must cover before it is reported low: its next attempts, a replacement
// or two included.
const LowBalanceAttempts = 3

// senderMetrics are the per-sender gauges; their sender label takes the
// node's configured senders only.
type senderMetrics struct {
	balance *prometheus.GaugeVec
	nonce   *prometheus.GaugeVec
	low     *prometheus.GaugeVec
}

func newSenderMetrics() senderMetrics {
	return senderMetrics{
		balance: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "ordo_sequencer_sender_balance",
			Help: "A sender's balance on the chain, in its smallest unit (wei on an EVM chain)."}, []string{"sender"}),
		nonce: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "ordo_sequencer_sender_nonce",
			Help: "A sender's nonces: chain (the next the chain includes), pending (after its mempool transactions) and next (the node's next new attempt)."}, []string{"sender", "kind"}),
		low: prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "ordo_sequencer_sender_balance_low",
			Help: "1 while a sender's balance is below what its next attempts may cost (LowBalanceAttempts at fees.max times its gas limit)."}, []string{"sender"}),
	}
}

func (m senderMetrics) collectors() []prometheus.Collector {
	return []prometheus.Collector{m.balance, m.nonce, m.low}
}

// gasSeen is the largest gas limit each sender's attempts used (chains
// with gas), for the cost of its next attempts.
type gasSeen struct {
	mu  sync.Mutex
	max map[string]uint64
}

func (g *gasSeen) note(sender string, gas uint64) {
	g.mu.Lock()
	if gas > g.max[sender] {
		g.max[sender] = gas
	}
	g.mu.Unlock()
}

func (g *gasSeen) of(sender string) uint64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	return max(g.max[sender], 1) // devchain: the fee is per transaction
}

// watchSenders reads every sender's account each SenderPoll until ctx
// ends: balance and nonces into the metrics, and a warning when a
// sender's balance falls below what its next attempts may cost (again
// once it recovered).
func (n *Node) watchSenders(ctx context.Context) {
	low := map[string]bool{}
	for wait := time.Duration(0); ; wait = n.cfg.SenderPoll {
		t := n.cfg.Clock.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C():
		}
		next := map[string]uint64{}
		if recs, err := n.cfg.Store.Senders(ctx); err == nil {
			for _, r := range recs {
				next[r.ID] = r.NextNonce
			}
		}
		for _, s := range n.cfg.Senders {
			id := string(s.ID)
			acct, err := n.cfg.Chain.Account(ctx, s.ID)
			if err != nil {
				continue // the chain's health is reported elsewhere
			}
			bal := balanceOf(acct)
			m := n.cfg.Metrics.sender
			m.balance.WithLabelValues(id).Set(bal)
			m.nonce.WithLabelValues(id, "chain").Set(float64(acct.Nonce))
			m.nonce.WithLabelValues(id, "pending").Set(float64(acct.PendingNonce))
			if nn, ok := next[id]; ok {
				m.nonce.WithLabelValues(id, "next").Set(float64(nn))
			}
			cost := new(big.Float).SetUint64(n.cfg.Fees.Max)
			cost.Mul(cost, new(big.Float).SetUint64(n.gas.of(id)))
			cost.Mul(cost, big.NewFloat(LowBalanceAttempts))
			need, _ := cost.Float64()
			isLow := bal < need
			m.low.WithLabelValues(id).Set(b2f(isLow))
			if isLow && !low[id] {
				n.log.Warn("sequencer: a sender's balance is below what its next attempts may cost: fund it",
					"sender", id, "balance", acct.BalanceExact, "balanceUnits", acct.Balance, "needs", need, "attempts", LowBalanceAttempts, "feeMax", n.cfg.Fees.Max)
			}
			low[id] = isLow
		}
	}
}

// balanceOf is an account's balance as a float: the exact decimal when
// the chain gives one (wei past uint64), else Balance.
func balanceOf(a chain.Account) float64 {
	if a.BalanceExact != "" {
		if f, ok := new(big.Float).SetString(a.BalanceExact); ok {
			v, _ := f.Float64()
			return v
		}
	}
	return float64(a.Balance)
}

func b2f(b bool) float64 {
	if b {
		return 1
	}
	return 0
}
