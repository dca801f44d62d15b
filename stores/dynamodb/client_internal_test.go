package dynamodb

import (
	"errors"
	"net"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/smithy-go"
	smithyhttp "github.com/aws/smithy-go/transport/http"
)

// TestWriteRetryer: writes are retried only after throttling, never after
// an error that may hide an applied write, nor after a failed condition.
func TestWriteRetryer(t *testing.T) {
	r := writeRetryer()
	api := func(code string) error { return &smithy.GenericAPIError{Code: code, Message: code} }
	cases := []struct {
		name  string
		err   error
		retry bool
	}{
		{"throttled", api("ThrottlingException"), true},
		{"throughput exceeded", api("ProvisionedThroughputExceededException"), true},
		{"condition failed", api("ConditionalCheckFailedException"), false},
		{"server error", &smithyhttp.ResponseError{Response: &smithyhttp.Response{}, Err: api("InternalServerError")}, false},
		{"connection reset", &net.OpError{Op: "read", Err: errors.New("connection reset by peer")}, false},
		{"timeout", &aws.RequestCanceledError{Err: errors.New("deadline")}, false},
	}
	for _, c := range cases {
		if got := r.IsErrorRetryable(c.err); got != c.retry {
			t.Errorf("%s: retryable = %v, want %v", c.name, got, c.retry)
		}
	}
	if r.MaxAttempts() < 2 {
		t.Errorf("throttled writes get %d attempts", r.MaxAttempts())
	}
}
