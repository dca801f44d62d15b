package storeurl

import "github.com/mcptasks/mcptasks/internal/redact"

// Masked replaces every secret Redact and Open errors hide.
const Masked = redact.Masked

// Redact returns spec with every credential it holds (a password in the
// URL or in a URL nested in a parameter, parameters such as password or
// token) replaced by Masked, for logs and messages.
func Redact(spec string) string { return redact.Spec(spec) }

// redactErr masks spec's credentials in err's message.
func redactErr(err error, spec string) error { return redact.Error(err, spec) }
