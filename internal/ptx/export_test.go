package ptx

// TakeForTest holds n bytes of b, as answers being built elsewhere would.
func TakeForTest(b *Budget, n int64) bool { return b.take(n) }

// ReleaseForTest gives back what TakeForTest held.
func ReleaseForTest(b *Budget, n int64) { b.release(n) }
