package grpcnet

import "github.com/ordolabs/ordo/internal/transport"

// queue is a peer's bounded FIFO of outgoing messages. Not safe for
// concurrent use: the peer's lock guards it.
type queue struct {
	limit int
	msgs  []transport.Message
}

// push queues m. It returns shed when a non-assured message was dropped to
// make room (or m itself was dropped), and full when m is assured and every
// queued message is assured (m is then not queued).
func (q *queue) push(m transport.Message) (shed, full bool) {
	if len(q.msgs) < q.limit {
		q.msgs = append(q.msgs, m)
		return false, false
	}
	for i, old := range q.msgs {
		if !old.Assured {
			copy(q.msgs[i:], q.msgs[i+1:])
			q.msgs[len(q.msgs)-1] = m
			return true, false
		}
	}
	if !m.Assured {
		return true, false
	}
	return false, true
}

// pop takes the oldest message.
func (q *queue) pop() (transport.Message, bool) {
	if len(q.msgs) == 0 {
		return transport.Message{}, false
	}
	m := q.msgs[0]
	q.msgs[0] = transport.Message{}
	q.msgs = q.msgs[1:]
	if len(q.msgs) == 0 {
		q.msgs = nil // let the backing array go
	}
	return m, true
}

func (q *queue) len() int { return len(q.msgs) }
