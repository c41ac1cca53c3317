package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/ordolabs/ordo/client"
)

// defaultNodeURL is where the client commands find a node unless --node says
// otherwise.
const defaultNodeURL = "http://127.0.0.1:7070"

// clientCommands returns the commands that talk to a running node over its
// HTTP API: tx (send, get, list), queues and senders. Each prints the API's
// JSON, indented, on stdout. An error is returned (main prints it on stderr
// and exits non-zero) as "CODE: message (HTTP status)" for an error the node
// answered, wrapping the *client.APIError.
func clientCommands() []*cobra.Command {
	return []*cobra.Command{txCmd(), queuesCmd(), sendersCmd()}
}

// tokenEnv is the environment variable the client commands take their
// token from when --token is not given.
const tokenEnv = "ORDO_TOKEN"

// clientFlags are the flags every client command shares.
type clientFlags struct {
	node    string
	timeout time.Duration
	token   string
	caFile  string
}

// caFileEnv is the environment variable the client commands take their CA
// file from when --ca-file is not given.
const caFileEnv = "ORDO_CA_FILE"

func (f *clientFlags) register(cmd *cobra.Command) {
	cmd.PersistentFlags().StringVar(&f.node, "node", defaultNodeURL, "base URL of the node's API")
	cmd.PersistentFlags().DurationVar(&f.timeout, "timeout", 30*time.Second, "how long one request may take")
	cmd.PersistentFlags().StringVar(&f.token, "token", "", "bearer token of one of the node's principals (default $"+tokenEnv+"); a node outside dev mode needs one")
	cmd.PersistentFlags().StringVar(&f.caFile, "ca-file", "", "PEM certificates to trust for an https:// --node (its api.tls certificate, or its CA) in place of the system's (default $"+caFileEnv+")")
}

// bearer is the token to send: --token, else $ORDO_TOKEN, else none.
func (f *clientFlags) bearer() string {
	if f.token != "" {
		return f.token
	}
	return strings.TrimSpace(os.Getenv(tokenEnv))
}

// ca is the CA file: --ca-file, else $ORDO_CA_FILE, else none.
func (f *clientFlags) ca() string {
	if f.caFile != "" {
		return f.caFile
	}
	return strings.TrimSpace(os.Getenv(caFileEnv))
}

func (f *clientFlags) client() *client.Client {
	var opts []client.Option
	if tok := f.bearer(); tok != "" {
		opts = append(opts, client.WithToken(tok))
	}
	if ca := f.ca(); ca != "" {
		opts = append(opts, client.WithCAFile(ca))
	}
	return client.New(f.node, &http.Client{Timeout: f.timeout}, opts...)
}

// run adapts a client call: on success it prints v as indented JSON, on
// failure it returns the error as cliError.
func run(fn func(cmd *cobra.Command, args []string) (any, error)) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		// Arguments have been parsed: from here an error is the node's or
		// the network's, not a usage mistake.
		cmd.SilenceUsage = true
		v, err := fn(cmd, args)
		if err != nil {
			return cliError{err}
		}
		return printJSON(cmd.OutOrStdout(), v)
	}
}

// cliError words an error for the command line: the API's code, message and
// status when the node answered one, the cause otherwise.
type cliError struct{ err error }

func (e cliError) Error() string {
	var ae *client.APIError
	if errors.As(e.err, &ae) {
		hint := ""
		if ae.Code == client.CodeUnauthenticated {
			hint = "; give a principal's token with --token or $" + tokenEnv
		}
		return fmt.Sprintf("%s: %s (HTTP %d)%s", ae.Code, ae.Message, ae.Status, hint)
	}
	return strings.TrimPrefix(e.err.Error(), "ordo client: ")
}

func (e cliError) Unwrap() error { return e.err }

// readArg reads an argument given as inline JSON, @FILE, or @- for stdin;
// what names it in an error.
func readArg(stdin io.Reader, v, what string) ([]byte, error) {
	name, ok := strings.CutPrefix(v, "@")
	if !ok {
		return []byte(v), nil
	}
	var b []byte
	var err error
	if name == "-" {
		b, err = io.ReadAll(stdin)
	} else {
		b, err = os.ReadFile(name)
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s %s: %w", what, v, err)
	}
	return b, nil
}

// orEmpty is s, or an empty list when s is nil: a list prints as [], never
// null.
func orEmpty[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

func printJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("writing the output: %w", err)
	}
	return nil
}

func txCmd() *cobra.Command {
	var f clientFlags
	cmd := &cobra.Command{
		Use:   "tx",
		Short: "Send and read sequencer transactions on a running node",
	}
	f.register(cmd)
	cmd.AddCommand(txSendCmd(&f), txGetCmd(&f), txListCmd(&f))
	return cmd
}

func txSendCmd(f *clientFlags) *cobra.Command {
	var in client.Intake
	var data string
	var wait bool
	var waitTimeout time.Duration
	cmd := &cobra.Command{
		Use:   "send --queue Q --type T [--data JSON|@FILE|@-] [--idempotency-key K] [--wait [--wait-timeout D]]",
		Short: "Submit a transaction intent; prints the committed record",
		Long: `Submit a transaction intent to the node's sequencer and print the committed
record. --data is any JSON value, given inline, as @FILE, or as @- for stdin.
With an idempotency key the node already knows, the existing record is printed
(and a note goes to stderr) instead of a new one being made.

With --wait it returns when the intent is DONE (exit 0, the final record on
stdout) or FAILED (the final record on stdout, the error on stderr, exit
non-zero), following the node's change stream (GET /v1/changes), opened
before the send; --wait-timeout bounds the wait.`,
		Args: cobra.NoArgs,
		RunE: run(func(cmd *cobra.Command, _ []string) (any, error) {
			raw, err := readData(cmd.InOrStdin(), data)
			if err != nil {
				return nil, err
			}
			in.Data = raw
			var (
				tx      client.Transaction
				created bool
			)
			if wait {
				ctx, cancel := context.WithTimeout(cmd.Context(), waitTimeout)
				defer cancel()
				tx, created, err = sendAndWait(ctx, f.client(), f.streamClient(), in)
				if errors.Is(err, errTxFailed) {
					if perr := printJSON(cmd.OutOrStdout(), tx); perr != nil {
						return nil, perr
					}
				}
			} else {
				tx, created, err = f.client().Send(cmd.Context(), in)
			}
			if err != nil {
				return nil, err
			}
			if !created {
				fmt.Fprintf(cmd.ErrOrStderr(), "ordo: idempotency key %q is known: this is the existing record\n", in.IdempotencyKey)
			}
			return tx, nil
		}),
	}
	fl := cmd.Flags()
	fl.StringVar(&in.Queue, "queue", "", "queue name (for the built-in zkApp types, the zkApp)")
	fl.StringVar(&in.Type, "type", "", "transaction type, one of the node's allowed types")
	fl.StringVar(&data, "data", "", "transaction data: JSON, @FILE or @- (default {})")
	fl.StringVar(&in.IdempotencyKey, "idempotency-key", "", "a key that makes a repeated send return the first record")
	fl.BoolVar(&wait, "wait", false, "return when the intent is DONE (exit 0) or FAILED (exit non-zero)")
	fl.DurationVar(&waitTimeout, "wait-timeout", defaultWaitTimeout, "how long --wait waits")
	_ = cmd.MarkFlagRequired("queue")
	_ = cmd.MarkFlagRequired("type")
	return cmd
}

// readData returns the --data value: inline JSON, @FILE, or @- for stdin.
func readData(stdin io.Reader, v string) (json.RawMessage, error) {
	if v == "" {
		return nil, nil
	}
	b, err := readArg(stdin, v, "--data")
	if err != nil {
		return nil, err
	}
	if !json.Valid(b) {
		return nil, errors.New("--data is not valid JSON")
	}
	return json.RawMessage(b), nil
}

func txGetCmd(f *clientFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "get UID",
		Short: "Print a transaction with its attempts and its history of states",
		Args:  cobra.ExactArgs(1),
		RunE: run(func(cmd *cobra.Command, args []string) (any, error) {
			tx, history, err := f.client().Get(cmd.Context(), args[0])
			if err != nil {
				return nil, err
			}
			return struct {
				Transaction client.Transaction    `json:"transaction"`
				History     []client.HistoryEntry `json:"history"`
			}{tx, orEmpty(history)}, nil
		}),
	}
}

func txListCmd(f *clientFlags) *cobra.Command {
	var o client.ListOptions
	cmd := &cobra.Command{
		Use:   "list [--queue Q] [--state S] [--limit N] [--cursor C]",
		Short: "List transactions in the order the node accepted them, a page at a time",
		Long: `List transactions in the order the node accepted them. The output's "next" is
the --cursor of the following page; it is empty when there is none yet.`,
		Args: cobra.NoArgs,
		RunE: run(func(cmd *cobra.Command, _ []string) (any, error) {
			txs, next, err := f.client().List(cmd.Context(), o)
			if err != nil {
				return nil, err
			}
			return struct {
				Transactions []client.Transaction `json:"transactions"`
				Next         string               `json:"next"`
			}{orEmpty(txs), next}, nil
		}),
	}
	fl := cmd.Flags()
	fl.StringVar(&o.Queue, "queue", "", "only this queue")
	fl.StringVar(&o.State, "state", "", "only this state: WAITING, REVISION, RETRY, DONE or FAILED")
	fl.IntVar(&o.Limit, "limit", 0, "page size, 1-1000 (default 100)")
	fl.StringVar(&o.Cursor, "cursor", "", `"next" of the previous page`)
	return cmd
}

func queuesCmd() *cobra.Command {
	var (
		f clientFlags
		o client.PageOptions
	)
	cmd := &cobra.Command{
		Use:   "queues [NAME] [--limit N] [--cursor C]",
		Short: "List the node's queues a page at a time, or print one with its counts by state",
		Long: `Without NAME, list the node's queues in the order of their names, a page at a
time. The output's "next" is the --cursor of the following page; it is empty
when there is none yet. With NAME, print that queue with its counts by state.`,
		Args: cobra.MaximumNArgs(1),
		RunE: run(func(cmd *cobra.Command, args []string) (any, error) {
			c := f.client()
			if len(args) == 1 {
				if cmd.Flags().Changed("limit") || cmd.Flags().Changed("cursor") {
					return nil, errors.New("--limit and --cursor page the list of queues; they do not go with NAME")
				}
				return c.Queue(cmd.Context(), args[0])
			}
			qs, next, err := c.QueuesPage(cmd.Context(), o)
			if err != nil {
				return nil, err
			}
			return struct {
				Queues []client.Queue `json:"queues"`
				Next   string         `json:"next"`
			}{orEmpty(qs), next}, nil
		}),
	}
	f.register(cmd)
	fl := cmd.Flags()
	fl.IntVar(&o.Limit, "limit", 0, "page size, 1-1000 (default 100)")
	fl.StringVar(&o.Cursor, "cursor", "", `"next" of the previous page`)
	return cmd
}

func sendersCmd() *cobra.Command {
	var f clientFlags
	cmd := &cobra.Command{
		Use:   "senders",
		Short: "List the node's senders and the queue each is bound to",
		Args:  cobra.NoArgs,
		RunE: run(func(cmd *cobra.Command, _ []string) (any, error) {
			ss, err := f.client().Senders(cmd.Context())
			if err != nil {
				return nil, err
			}
			return struct {
				Senders []client.Sender `json:"senders"`
			}{orEmpty(ss)}, nil
		}),
	}
	f.register(cmd)
	cmd.AddCommand(cancelNonceCmd())
	return cmd
}

func cancelNonceCmd() *cobra.Command {
	var (
		f     clientFlags
		nonce uint64
		then  string
	)
	cmd := &cobra.Command{
		Use:   "cancel SENDER --nonce N --then fail|requeue",
		Short: "Cancel a sender's stuck nonce: a no-op takes the place of the attempt pending there (admin)",
		Long: `Cancel a sender's stuck nonce: the node sends a no-op at that nonce, at a fee above the
pending attempt's (above fees.max if need be), in its place. Once the no-op holds the
nonce, the transaction whose attempt was pending there ends FAILED (--then fail) or is
sent again at a fresh nonce (--then requeue, no retry counted; FAILED instead when later
transactions of its queue were sent behind the nonce). If its own attempt lands first,
it ends DONE. The node answers with the transaction's uid; its history says what became of it.`,
		Args: cobra.ExactArgs(1),
		RunE: run(func(cmd *cobra.Command, args []string) (any, error) {
			if !cmd.Flags().Changed("nonce") {
				return nil, fmt.Errorf("--nonce is required")
			}
			return f.client().CancelNonce(cmd.Context(), args[0], nonce, then)
		}),
	}
	f.register(cmd)
	cmd.Flags().Uint64Var(&nonce, "nonce", 0, "the stuck nonce")
	cmd.Flags().StringVar(&then, "then", "", "what becomes of its transaction: fail or requeue")
	return cmd
}
