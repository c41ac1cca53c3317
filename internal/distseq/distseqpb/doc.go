// Package distseqpb is the generated Go code of the distributed sequencer's
// messages (proto/ordo/distseq/v1/distseq.proto, seed 003's "Message
// specification"): do not edit distseq.pb.go; change the .proto and run
//
//	go generate ./internal/distseq/distseqpb
//
// which runs buf (pinned) with protoc-gen-go at the module's protobuf
// version. CI runs it and fails when the committed code differs.
//
// Invariants: every message travels inside an Envelope carrying
// protocol_version and message_id (and correlation_id on a reply); the
// assured messages carry their own idempotency id (delegation_id,
// assemble_request_id, idempotency_key, request_id, startup_id,
// notification_id, distribution_id), the same on every resend.
package distseqpb

//go:generate sh -c "cd ../../.. && go run github.com/bufbuild/buf/cmd/buf@v1.75.0 generate"
