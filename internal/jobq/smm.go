package jobq

// The four job queues of the state machine manager (seed 004, issue 12),
// with the starting defaults of Audius's deployment. Only their
// configuration is here; their jobs come with the SMM.
const (
	// QueueMonitoring runs monitor-state, find-sync-requests and
	// find-replica-set-updates (and the registry mapping's refresh): one
	// job at a time.
	QueueMonitoring = "monitoring"
	// QueueManualSync is the fast lane of write-triggered syncs: 15 at once.
	QueueManualSync = "manual-sync"
	// QueueRecurringSync runs issue-recurring-sync-request (the
	// reconciliation queue's syncs): 5 at once.
	QueueRecurringSync = "recurring-sync"
	// QueueReplicaSetUpdate runs issue-replica-set-update: one at a
	// time.
	QueueReplicaSetUpdate = "replica-set-update"
)

// SMMQueues returns the four SMM queues with their starting concurrency
// (monitoring 1, manual sync 15, recurring sync 5, replica-set update 1)
// and the default cap on waiting jobs.
func SMMQueues() []QueueConfig {
	return []QueueConfig{
		{Name: QueueMonitoring, Concurrency: 1, MaxWaiting: DefaultMaxWaiting},
		{Name: QueueManualSync, Concurrency: 15, MaxWaiting: DefaultMaxWaiting},
		{Name: QueueRecurringSync, Concurrency: 5, MaxWaiting: DefaultMaxWaiting},
		{Name: QueueReplicaSetUpdate, Concurrency: 1, MaxWaiting: DefaultMaxWaiting},
	}
}
