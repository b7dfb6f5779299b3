// Package cluster holds the multi-replica tests: several thumbforge processes on one
// PostgreSQL database and one S3-compatible bucket behind a round-robin proxy.
package cluster
