# mcptasks task store: one DynamoDB table with the by_owner, by_expiry and
# by_lease indexes and TTL on expires_at. The layout must match stores/dynamodb
# TableDefinition; the store's tests check the names below.

resource "aws_dynamodb_table" "tasks" {
  name                        = var.table_name
  billing_mode                = "PAY_PER_REQUEST"
  hash_key                    = "pk"
  deletion_protection_enabled = var.deletion_protection

  attribute {
    name = "pk"
    type = "S"
  }

  attribute {
    name = "owner"
    type = "S"
  }

  attribute {
    name = "created_key"
    type = "S"
  }

  attribute {
    name = "expiry_shard"
    type = "S"
  }

  attribute {
    name = "expires_ms"
    type = "N"
  }

  attribute {
    name = "lease_shard"
    type = "S"
  }

  attribute {
    name = "lease_ms"
    type = "N"
  }

  global_secondary_index {
    name            = "by_owner"
    hash_key        = "owner"
    range_key       = "created_key"
    projection_type = "ALL"
  }

  # Sparse indexes the cleanup jobs query instead of scanning the table.
  global_secondary_index {
    name            = "by_expiry"
    hash_key        = "expiry_shard"
    range_key       = "expires_ms"
    projection_type = "KEYS_ONLY"
  }

  global_secondary_index {
    name               = "by_lease"
    hash_key           = "lease_shard"
    range_key          = "lease_ms"
    projection_type    = "INCLUDE"
    non_key_attributes = ["id", "owner"]
  }

  ttl {
    attribute_name = "expires_at"
    enabled        = true
  }

  point_in_time_recovery {
    enabled = var.point_in_time_recovery
  }

  server_side_encryption {
    enabled = true
  }

  tags = var.tags
}
