package dynamodb

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/ratelimit"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	ddb "github.com/aws/aws-sdk-go-v2/service/dynamodb"
	"github.com/aws/smithy-go"
)

// ClientConfig says how NewClient reaches DynamoDB.
type ClientConfig struct {
	// Endpoint is the URL of a DynamoDB-compatible server such as
	// dynalite or DynamoDB Local (http://127.0.0.1:8000). Empty means AWS,
	// with credentials from the usual AWS sources.
	Endpoint string
	// Region defaults to us-east-1 with an Endpoint, and to the AWS
	// configuration (AWS_REGION, profile) without one.
	Region string
}

// NewClient builds a DynamoDB client. With an Endpoint it signs with
// static dummy credentials (local servers accept any) and skips the
// response CRC check, which DynamoDB Local's error bodies fail; without one
// it uses the AWS SDK's default configuration chain (environment, shared
// config files, instance roles).
func NewClient(ctx context.Context, c ClientConfig) (*ddb.Client, error) {
	var opts []func(*config.LoadOptions) error
	if c.Region != "" {
		opts = append(opts, config.WithRegion(c.Region))
	} else if c.Endpoint != "" {
		opts = append(opts, config.WithRegion("us-east-1"))
	}
	if c.Endpoint != "" {
		opts = append(opts, config.WithCredentialsProvider(credentials.NewStaticCredentialsProvider("local", "local", "")))
	}
	awsCfg, err := config.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		return nil, fmt.Errorf("dynamodb: load AWS configuration: %w", err)
	}
	if awsCfg.Region == "" {
		return nil, errors.New("dynamodb: no AWS region: set one (region=… in the store URL, or AWS_REGION)")
	}
	return ddb.NewFromConfig(awsCfg, func(o *ddb.Options) {
		if c.Endpoint != "" {
			o.BaseEndpoint = aws.String(c.Endpoint)
			o.DisableValidateResponseChecksum = true
		}
	}), nil
}

// writeRetryer retries a write only when DynamoDB says it throttled the
// request, which means the write was not applied. Any other failure
// (timeouts, connection resets, 5xx) may hide a write that did happen; a
// retry of a conditional write would then fail its own condition and turn a
// won race into a reported loss, so such errors go back to the caller.
func writeRetryer() aws.Retryer {
	return retry.NewStandard(func(o *retry.StandardOptions) {
		o.MaxAttempts = 4
		o.RateLimiter = ratelimit.None
		o.Retryables = []retry.IsErrorRetryable{
			retry.NoRetryCanceledError{},
			retry.IsErrorRetryableFunc(func(err error) aws.Ternary {
				var api smithy.APIError
				if errors.As(err, &api) {
					if _, ok := retry.DefaultThrottleErrorCodes[api.ErrorCode()]; ok {
						return aws.TrueTernary
					}
				}
				return aws.FalseTernary
			}),
		}
	})
}
