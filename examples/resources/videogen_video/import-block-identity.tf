# Terraform and OpenTofu 1.12 or later: import by resource identity.
import {
  to       = videogen_video.launch
  identity = { task_id = "task_abc123" }
}
