package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"runtime"
	"strings"
	"syscall"
	"time"
)

// options are the command's flags.
type options struct {
	txs       int
	keys      int
	queues    int
	inFlight  int
	batch     int
	blockTime time.Duration
	ordoBin   string
	timeout   time.Duration
}

func main() {
	var o options
	flag.IntVar(&o.txs, "txs", 2000, "transactions each contender sends")
	flag.IntVar(&o.keys, "keys", 8, "signing keys: ordo's senders and txmgr's managers (dev accounts 1..K)")
	flag.IntVar(&o.queues, "queues", 0, "ordo's queues, one claim each: its create_claim_voting_account, then send_claim_vote (0: one per key); txmgr sends queue q through manager q mod K")
	flag.IntVar(&o.inFlight, "in-flight", 1024, "ordo: transactions in flight per queue (sequencer.pipelines inFlight, 1 to 1024; 1: no pipeline)")
	flag.IntVar(&o.batch, "batch", 500, "ordo: intents per POST /v1/transactions (at most 1000)")
	flag.DurationVar(&o.blockTime, "block-time", time.Second, "the chain's block time (ordo evmdev --block-time)")
	flag.StringVar(&o.ordoBin, "ordo", "", "an ordo binary to run instead of building one from the repository")
	flag.DurationVar(&o.timeout, "timeout", 20*time.Minute, "the whole run's limit")
	flag.Parse()
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "peers evm:", err)
		os.Exit(1)
	}
}

func run(o options) error {
	if o.queues == 0 {
		o.queues = o.keys
	}
	if o.txs < 1 || o.keys < 1 || o.queues < 1 || o.batch < 1 || o.batch > 1000 || o.inFlight < 1 || o.inFlight > 1024 {
		return errors.New("--txs, --keys and --queues must be at least 1, --batch 1 to 1000, --in-flight 1 to 1024")
	}
	loadStart := loadAverage()
	ctx, cancel := context.WithTimeout(context.Background(), o.timeout)
	defer cancel()
	ctx, stopSignals := signal.NotifyContext(ctx, os.Interrupt, syscall.SIGTERM)
	defer stopSignals()

	bin := o.ordoBin
	if bin == "" {
		dir, err := os.MkdirTemp("", "ordo-peers-evm-bin-")
		if err != nil {
			return err
		}
		defer func() { _ = os.RemoveAll(dir) }()
		if bin, err = buildOrdo(ctx, dir); err != nil {
			return err
		}
	}

	setup, intents := plan(o.txs, o.queues)
	od, err := runOrdo(ctx, bin, o, setup, intents)
	if err != nil {
		return fmt.Errorf("ordo's run: %w", err)
	}
	of, err := compute(od.samples, od.start, od.end)
	if err != nil {
		return fmt.Errorf("ordo's run: %w", err)
	}
	if of.failed+of.reverted > 0 {
		return fmt.Errorf("ordo's run: %d failed, %d reverted: an error, not a figure (%s)", of.failed, of.reverted, of)
	}
	txs := make([]onChain, len(od.samples))
	queues := make([]int, len(od.samples))
	for i, s := range od.samples {
		txs[i], queues[i] = s.tx, queueOf(i, o.queues)
	}
	router := od.samples[0].tx.to
	tm, err := runTxmgr(ctx, bin, o, router, od.setup, intents, txs, queues)
	if err != nil {
		return fmt.Errorf("OP txmgr's run: %w", err)
	}
	tf, err := compute(tm.samples, tm.start, tm.end)
	if err != nil {
		return fmt.Errorf("OP txmgr's run: %w", err)
	}
	if tf.failed+tf.reverted > 0 {
		return fmt.Errorf("OP txmgr's run: %d failed, %d reverted: an error, not a figure (%s)", tf.failed, tf.reverted, tf)
	}
	fmt.Printf("peers evm: %d txs, %d keys: ordo %s | OP txmgr %s | ordo/txmgr %.2f× tx/s\n", o.txs, o.keys, of, tf, of.perSecond/tf.perSecond)
	settings := []string{
		fmt.Sprintf("N %d", o.txs), fmt.Sprintf("K %d", o.keys), "block time " + o.blockTime.String(),
		fmt.Sprintf("%d queues (claims): their creates first, not measured, then the N votes", o.queues),
		fmt.Sprintf("GOMAXPROCS %d", runtime.GOMAXPROCS(0)),
		fmt.Sprintf("ordo: keystore senders, %d in flight per queue, batches of %d, default fees", o.inFlight, o.batch),
		txmgrSettings(o.blockTime),
	}
	fmt.Println("peers evm settings: " + strings.Join(settings, "; ") + "; load average at start " + loadStart + ", at end " + loadAverage())
	return nil
}

// loadAverage is the 1, 5 and 15 minute load averages, as /proc/loadavg
// gives them.
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "unknown"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "unknown"
	}
	return strings.Join(f[:3], " ")
}
