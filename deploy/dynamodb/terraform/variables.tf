variable "table_name" {
  description = "Name of the table; pass it to the server as dynamodb://NAME"
  type        = string
  default     = "mcptasks-tasks"
}

variable "point_in_time_recovery" {
  description = "Keep continuous backups of the table"
  type        = bool
  default     = true
}

variable "deletion_protection" {
  description = "Refuse to delete the table while this is set"
  type        = bool
  default     = true
}

variable "tags" {
  description = "Tags for the table"
  type        = map(string)
  default     = {}
}
