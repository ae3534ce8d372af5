# Terraform and OpenTofu 1.12 or later: import by resource identity.
import {
  to = videogen_video_file.teaser
  identity = {
    task_id = "task_abc123"
    path    = "out/teaser.mp4"
  }
}
