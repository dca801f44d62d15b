package testenv

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// listTables sends a ListTables request to a DynamoDB-compatible server
// and returns the status and body.
func listTables(t *testing.T, endpoint string) (int, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, endpoint, strings.NewReader("{}"))
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC()
	req.Header.Set("Content-Type", "application/x-amz-json-1.0")
	req.Header.Set("X-Amz-Target", "DynamoDB_20120810.ListTables")
	req.Header.Set("X-Amz-Date", now.Format("20060102T150405Z"))
	req.Header.Set("Authorization", fmt.Sprintf("AWS4-HMAC-SHA256 Credential=local/%s/us-east-1/dynamodb/aws4_request, SignedHeaders=host;x-amz-date, Signature=00", now.Format("20060102")))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("ListTables on %s: %v", endpoint, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}

func TestDynamoDBAnswersOnLoopback(t *testing.T) {
	ep, kind := DynamoDBServer(t)
	if ep2 := DynamoDB(t); ep2 != ep {
		t.Fatalf("second call started another server: %s then %s", ep, ep2)
	}
	if kind != KindExternal {
		u, err := url.Parse(ep)
		if err != nil || u.Hostname() != "127.0.0.1" {
			t.Fatalf("endpoint %q is not on 127.0.0.1", ep)
		}
	}
	code, body := listTables(t, ep)
	if code != http.StatusOK || !strings.Contains(body, "TableNames") {
		t.Fatalf("ListTables: %d %s", code, body)
	}
}

// TestDynaliteSurvivesAbortedRequest: a client that drops its connection in
// the middle of a request (as a cancelled context or a killed process does)
// must not take dynalite down for the other tests.
func TestDynaliteSurvivesAbortedRequest(t *testing.T) {
	ep, kind := DynamoDBServer(t)
	if kind != KindDynalite {
		t.Skipf("only dynalite needs the guard; this run uses %s", kind)
	}
	u, _ := url.Parse(ep)
	for range 3 {
		c, err := net.Dial("tcp", u.Host)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Fprintf(c, "POST / HTTP/1.1\r\nHost: %s\r\nContent-Type: application/x-amz-json-1.0\r\nX-Amz-Target: DynamoDB_20120810.ListTables\r\nContent-Length: 1000\r\n\r\n{", u.Host)
		time.Sleep(50 * time.Millisecond)
		c.(*net.TCPConn).SetLinger(0) // reset, as a killed process does
		c.Close()
	}
	time.Sleep(200 * time.Millisecond)
	if code, body := listTables(t, ep); code != http.StatusOK {
		t.Fatalf("after aborted requests: %d %s", code, body)
	}
}
