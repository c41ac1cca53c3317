package client_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/ordolabs/ordo/client"
	"github.com/ordolabs/ordo/internal/api/apitest"
	"github.com/ordolabs/ordo/internal/auth"
)

// startNode runs a whole node in-process for the examples (a SQLite store
// in a temporary directory, a devchain producing a block every 50ms, a
// sequencer with the built-in dispatchers and four dev accounts as senders,
// the API on an httptest server) and returns its URL and a function that
// stops it. A real deployment runs `ordo serve` and points the client at
// its address instead.
func startNode() (string, func()) {
	n, err := apitest.Start(apitest.Options{BlockTime: 50 * time.Millisecond})
	if err != nil {
		panic(err)
	}
	<-n.Proc.Started() // apitest.Start waits for the sequencer only
	return n.URL, func() {
		if err := n.Close(); err != nil {
			panic(err)
		}
	}
}

// A node outside dev mode knows its callers by their bearer tokens: its
// config lists principals with a token (or its SHA-256, as `ordo token`
// prints it) and roles. Here the application "app" may submit and read.
func ExampleWithToken() {
	const token = "app-token-4f9c2a7e1b3d5a6c" // from `ordo token`, kept secret
	n, err := apitest.Start(apitest.Options{Principals: []auth.PrincipalConfig{
		{Principal: "app", TokenSHA256: auth.TokenSHA256(token), Roles: []auth.Role{auth.RoleSubmit, auth.RoleRead}},
	}})
	if err != nil {
		panic(err)
	}
	defer func() { _ = n.Close() }()
	ctx := context.Background()

	c := client.New(n.URL, nil, client.WithToken(token))
	tx, _, err := c.Send(ctx, client.Intake{Queue: "zkapp-6", Type: "CREATE_CLAIM_VOTING_ACCOUNT"})
	fmt.Println("sent:", err == nil, tx.State)

	var ae *client.APIError
	_, _, err = client.New(n.URL, nil).Send(ctx, client.Intake{Queue: "zkapp-6", Type: "CREATE_CLAIM_VOTING_ACCOUNT"})
	if errors.As(err, &ae) {
		fmt.Println("without a token:", ae.Status, ae.Code)
	}
	_, _, err = client.New(n.URL, nil, client.WithToken("a-token-nobody-has-0000")).Get(ctx, tx.UID)
	if errors.As(err, &ae) {
		fmt.Println("with an unknown one:", ae.Status, ae.Code)
	}
	// Output:
	// sent: true WAITING
	// without a token: 401 unauthenticated
	// with an unknown one: 401 unauthenticated
}

// Send an intent; sending it again with the same idempotency key returns the
// same record instead of making a second one.
func Example_send() {
	url, stop := startNode()
	defer stop()
	ctx := context.Background()
	c := client.New(url, nil)

	in := client.Intake{
		Queue:          "zkapp-1",
		Type:           "CREATE_CLAIM_VOTING_ACCOUNT",
		Data:           json.RawMessage(`{"title":"budget 2026"}`),
		IdempotencyKey: "claim-zkapp-1",
	}
	tx, created, err := c.Send(ctx, in)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("created:", created, "state:", tx.State, "data:", string(tx.Data))

	again, created, err := c.Send(ctx, in)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("created:", created, "same record:", again.UID == tx.UID)
	// Output:
	// created: true state: WAITING data: {"title":"budget 2026"}
	// created: false same record: true
}

// Send several intents in one request: the node commits those it accepts
// together and answers each intent in order; a refused one has its own
// error and stops none of the others.
func ExampleClient_SendMany() {
	url, stop := startNode()
	defer stop()
	ctx := context.Background()
	c := client.New(url, nil)

	res, err := c.SendMany(ctx, []client.Intake{
		{Queue: "zkapp-9", Type: "CREATE_CLAIM_VOTING_ACCOUNT", IdempotencyKey: "zkapp-9/create"},
		{Queue: "zkapp-9", Type: "SEND_CLAIM_VOTE", Data: json.RawMessage(`{"voter":"ann","vote":1}`), IdempotencyKey: "zkapp-9/ann"},
		{Queue: "zkapp-9", Type: "NO_SUCH_TYPE"},
		{Queue: "zkapp-9", Type: "SEND_CLAIM_VOTE", Data: json.RawMessage(`{"voter":"bob","vote":0}`), IdempotencyKey: "zkapp-9/bob"},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	for i, r := range res {
		var ae *client.APIError
		if errors.As(r.Err, &ae) {
			fmt.Println(i, "refused:", ae.Status, ae.Code)
			continue
		}
		fmt.Println(i, "created:", r.Created, r.Transaction.State)
	}
	// Output:
	// 0 created: true WAITING
	// 1 created: true WAITING
	// 2 refused: 422 type_not_allowed
	// 3 created: true WAITING
}

// Follow a transaction until the chain has included it.
func ExampleClient_Get() {
	url, stop := startNode()
	defer stop()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := client.New(url, nil)

	tx, _, err := c.Send(ctx, client.Intake{Queue: "zkapp-2", Type: "CREATE_CLAIM_VOTING_ACCOUNT"})
	if err != nil {
		fmt.Println(err)
		return
	}
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		got, history, err := c.Get(ctx, tx.UID)
		if err != nil {
			fmt.Println(err)
			return
		}
		if got.State == client.StateDone || got.State == client.StateFailed {
			fmt.Println("state:", got.State)
			fmt.Println("included:", len(got.Attempts) > 0 && got.Attempts[len(got.Attempts)-1].Height > 0)
			fmt.Println("last transition:", history[len(history)-1].To)
			break
		}
		select {
		case <-ctx.Done():
			fmt.Println("still", got.State)
			return
		case <-tick.C:
		}
	}
	// Output:
	// state: DONE
	// included: true
	// last transition: DONE
}

// Page through a queue's transactions.
func ExampleClient_List() {
	url, stop := startNode()
	defer stop()
	ctx := context.Background()
	c := client.New(url, nil)

	for i := range 3 {
		data := json.RawMessage(fmt.Sprintf(`{"vote":%d}`, i))
		if _, _, err := c.Send(ctx, client.Intake{Queue: "zkapp-3", Type: "SEND_CLAIM_VOTE", Data: data}); err != nil {
			fmt.Println(err)
			return
		}
	}
	opts := client.ListOptions{Queue: "zkapp-3", Limit: 2}
	for page := 1; ; page++ {
		txs, next, err := c.List(ctx, opts)
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("page %d:", page)
		for _, tx := range txs {
			fmt.Printf(" %s", tx.Data)
		}
		fmt.Println()
		if next == "" {
			break
		}
		opts.Cursor = next
	}
	// Output:
	// page 1: {"vote":0} {"vote":1}
	// page 2: {"vote":2}
}

// An intent of a type the node does not process is refused with a clear
// error; nothing is recorded.
func ExampleAPIError() {
	url, stop := startNode()
	defer stop()
	ctx := context.Background()
	c := client.New(url, nil)

	_, _, err := c.Send(ctx, client.Intake{Queue: "zkapp-4", Type: "TRANSFER"})
	var ae *client.APIError
	if errors.As(err, &ae) {
		fmt.Println(ae.Status, ae.Code)
		fmt.Println(ae.Message)
	}
	txs, _, _ := c.List(ctx, client.ListOptions{Queue: "zkapp-4"})
	fmt.Println("records:", len(txs))
	// Output:
	// 422 type_not_allowed
	// type not allowed: "TRANSFER"; allowed types are COMMIT_ALL_VOTING_BATCHES, CREATE_CLAIM_VOTING_ACCOUNT, CREATE_VOTING_BATCHES_ACCOUNT, RECEIVE_VOTES_BATCH, SEND_CLAIM_VOTE
	// records: 0
}

// Check that the node is up, and look at its queues and senders.
func ExampleClient_Health() {
	url, stop := startNode()
	defer stop()
	ctx := context.Background()
	c := client.New(url, nil)

	fmt.Println("health:", c.Health(ctx))
	if _, _, err := c.Send(ctx, client.Intake{Queue: "zkapp-5", Type: "CREATE_VOTING_BATCHES_ACCOUNT"}); err != nil {
		fmt.Println(err)
		return
	}
	qs, err := c.Queue(ctx, "zkapp-5")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("queue:", qs.Queue.Name, "transactions:", qs.Counts[client.StateWaiting]+qs.Counts[client.StateRevision]+qs.Counts[client.StateRetry]+qs.Counts[client.StateDone]+qs.Counts[client.StateFailed])
	senders, err := c.Senders(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("senders:", len(senders))
	_, err = c.Queue(ctx, "no-such-queue")
	fmt.Println(err)
	// Output:
	// health: <nil>
	// queue: zkapp-5 transactions: 1
	// senders: 4
	// ordo: not_found (404): no queue "no-such-queue"
}

// A processor (seed 002): an admin creates it, its owner adds an atomic
// batch (both calls in one transaction, all or none), a tick starts it,
// and its outcome arrives as a callback, kept by the node (a processor with
// a callbackURL also gets it POSTed there, with an Idempotency-Key).
func Example_processor() {
	url, stop := startNode()
	defer stop()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c := client.New(url, nil) // a node in dev mode: every caller is the admin "dev"

	if _, err := c.CreateProcessor(ctx, client.ProcessorSpec{Name: "payroll"}); err != nil {
		fmt.Println(err)
		return
	}
	added, err := c.AddBatch(ctx, "payroll", client.BatchSpec{
		ID:       "march",
		Priority: client.PriorityHigh,
		Msgs: []client.Msg{
			{Contract: "library", Method: "debit", Args: json.RawMessage(`{"amount":100}`)},
			{Contract: "library", Method: "credit", Args: json.RawMessage(`{"amount":100}`)},
		},
		ActionsConfig: client.ActionsConfig{Atomic: &client.AtomicConfig{
			Actions:    []client.Action{{}, {}},
			RetryLogic: &client.RetryLogic{Times: client.RetryTimes{Amount: 2}, Interval: client.RetryInterval{Blocks: 1}},
		}},
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("added:", added.ID, added.Priority, "at", added.Position)
	t, err := c.Tick(ctx, "payroll")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("tick:", t.Outcome, t.BatchID, "attempt", t.Attempt)

	// The execution lands blocks later; its outcome comes as a callback.
	poll := time.NewTicker(20 * time.Millisecond)
	defer poll.Stop()
	for {
		cbs, _, err := c.Callbacks(ctx, "payroll", 0, 0)
		if err != nil {
			fmt.Println(err)
			return
		}
		if len(cbs) > 0 {
			body, err := client.CallbackOutcome(cbs[0])
			if err != nil {
				fmt.Println(err)
				return
			}
			fmt.Println("callback:", cbs[0].Key, body.Outcome.Status, cbs[0].State)
			break
		}
		select {
		case <-ctx.Done():
			fmt.Println("no callback yet")
			return
		case <-poll.C:
		}
	}
	// Output:
	// added: march high at 0
	// tick: Started march attempt 1
	// callback: payroll/march Executed stored
}
