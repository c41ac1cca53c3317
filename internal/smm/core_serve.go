package smm

import "fmt"

// Request is what another node asks of this one that the core admits or
// refuses: entries pushed by a primary, a sync a primary asks for, a pull
// by a member.
type Request uint8

// Requests.
const (
	// RequestPush: From pushes entries under Version: only the primary of
	// the newest set this node knows, never under an older version.
	RequestPush Request = iota + 1
	// RequestSync: From asks this node to catch up with it: only the
	// primary of the set this node holds.
	RequestSync
	// RequestPull: From reads this node's log: any member (the primary
	// serves its secondaries, any member a new primary catching up); a
	// newer Version than this node holds is read from the chain first
	// (the fence: a deposed primary's pushes are refused from then on).
	RequestPull
)

// onAsked admits or refuses a request (Reply.Refused, Reply.Reason), or,
// the first time (not Refreshed), asks the driver to read the queue's set
// from the chain first (Reply.Refresh) when the request names a version
// or a sender the held set does not explain. Reply.Set is the set held.
func (c *Core) onAsked(in Input) {
	var held ReplicaSet
	if q := c.queues[in.Queue]; q != nil {
		held = q.set
	}
	if !in.Refreshed && c.askRefresh(in, held) {
		c.ready.Reply.Refresh = true
		return
	}
	c.ready.Reply.Set = held
	c.ready.Reply.Refused, c.ready.Reply.Reason = c.verdict(in, held)
}

// askRefresh reports whether the held set leaves the request unexplained.
func (c *Core) askRefresh(in Input, held ReplicaSet) bool {
	switch in.Request {
	case RequestPush:
		return held.Version == 0 || in.Version > held.Version || held.Primary != in.Node
	case RequestSync:
		return held.Version == 0 || held.Primary != in.Node
	case RequestPull:
		return in.Version > held.Version || !held.Holds(in.Node)
	}
	panic(fmt.Sprintf("smm: core: unknown request %d", in.Request))
}

// verdict is the refusal's code and reason ("" admits).
func (c *Core) verdict(in Input, held ReplicaSet) (string, string) {
	self := c.cfg.Self
	switch in.Request {
	case RequestPush:
		switch {
		case held.Version > in.Version:
			return CodeStale, fmt.Sprintf("sent under version %d; this node knows %d", in.Version, held.Version)
		case held.Primary != in.Node:
			return CodeNotPrimary, fmt.Sprintf("%s is not the primary of %q", in.Node, in.Queue)
		case !held.Holds(self):
			return CodeNotMember, fmt.Sprintf("%s is not a member of %q's replica set", self, in.Queue)
		}
	case RequestSync:
		if held.Primary != in.Node || !held.Holds(self) {
			return CodeNotPrimary, fmt.Sprintf("%s is not the primary of %q in the set this node knows", in.Node, in.Queue)
		}
	case RequestPull:
		switch {
		case !held.Holds(self):
			return CodeNotMember, fmt.Sprintf("%s holds no replica of %q", self, in.Queue)
		case !held.Holds(in.Node):
			return CodeNotMember, fmt.Sprintf("%s is not a member of %q's replica set", in.Node, in.Queue)
		}
	}
	return "", ""
}
