// Package smmpb holds the state machine manager's node-to-node messages,
// generated from proto/ordo/smm/v1/smm.proto (by distseqpb's go:generate,
// which runs buf over every source under proto/).
package smmpb
