package cluster

import (
	"slices"
	"testing"
	"time"

	"github.com/ordolabs/ordo/internal/distseq"
)

// Between 3S and 4S: the sender restarts while its coordinator assembles;
// the re-delegation must be taken idempotently (one Queued, no Abandoned).
func TestRedelegationDuringAssembling(t *testing.T) {
	w, coord, sender := failoverWorld(t)
	var id string
	done := false
	w.hook = func(n *Node, in distseq.Input, r *distseq.Ready) Crash {
		if n.ID == sender && id != "" && !done && slices.ContainsFunc(r.Transitions, func(tr distseq.Transition) bool {
			return tr.Role == distseq.RoleSender && tr.TxID == id && tr.To == distseq.Delegated
		}) {
			done = true
			w.crashNext[sender] = true
		}
		return NoCrash
	}
	id = w.submit(sender, 100, "")
	w.until(5*time.Second, "crash", func() bool { return !w.c.Node(sender).Up() })
	w.run(200 * time.Millisecond)
	if err := w.c.Restart(w.ctx, sender); err != nil {
		t.Fatal(err)
	}
	w.untilConfirmed(15*time.Second, id)
	if n := w.coord(coord, distseq.RoleCoordinator, id, distseq.CAbandoned); n != 0 {
		t.Errorf("%s abandoned %s %d times after its sender re-delegated it", coord, id, n)
	}
	if n := w.coord(coord, distseq.RoleCoordinator, id, distseq.CQueued); n != 1 {
		t.Errorf("%s queued %s %d times, want 1", coord, id, n)
	}
}
