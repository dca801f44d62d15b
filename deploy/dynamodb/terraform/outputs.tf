output "table_name" {
  description = "Table to give the server (--store dynamodb://NAME?region=REGION)"
  value       = aws_dynamodb_table.tasks.name
}

output "table_arn" {
  description = "ARN for IAM policies"
  value       = aws_dynamodb_table.tasks.arn
}

output "owner_index_arn" {
  description = "ARN of the by_owner index, which List queries"
  value       = "${aws_dynamodb_table.tasks.arn}/index/by_owner"
}
