resource "videogen_video" "teaser" {
  model  = "videogen-1"
  prompt = "A paper boat drifting down a rain-soaked city street at dusk"
}

# State keeps the file's path, size and SHA-256; a runner without the file
# downloads it again from the same task, billing nothing.
resource "videogen_video_file" "teaser" {
  task_id = videogen_video.teaser.task_id
  path    = "${path.module}/out/teaser.mp4"
}

output "teaser_sha256" {
  value = videogen_video_file.teaser.sha256
}

# The apply does not wait for this clip; its file does, within its own timeout.
resource "videogen_video" "trailer" {
  model               = "videogen-1"
  prompt              = "A lighthouse beam sweeping across a stormy sea, slow aerial shot"
  wait_for_completion = false
}

resource "videogen_video_file" "trailer" {
  task_id = videogen_video.trailer.task_id
  path    = "${path.module}/out/trailer.mp4"

  # Refuse anything larger than 512 MiB (the default is 4 GiB).
  max_size_bytes = 536870912

  timeouts {
    create = "45m" # the default is 30m
  }
}
