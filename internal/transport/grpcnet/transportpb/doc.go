// Package transportpb is the generated Go code of the node-to-node wire
// (proto/ordo/transport/v1/transport.proto): the Peer service and its Frame.
// Do not edit the .pb.go files; change the .proto and run
//
//	go generate ./internal/distseq/distseqpb
//
// (one buf run for all of proto/, with protoc-gen-go and protoc-gen-go-grpc
// pinned). CI runs it and fails when the committed code differs.
//
// Invariants: a Frame with hello set carries nothing else and is only ever
// the accepting side's first frame on a stream.
package transportpb
