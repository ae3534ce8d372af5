# A clip generated elsewhere, read by its task ID: nothing is submitted.
data "videogen_video" "intro" {
  task_id = "task_abc123"
}

# Its file, downloaded with a fresh URL read from the task.
resource "videogen_video_file" "intro" {
  task_id = data.videogen_video.intro.task_id
  path    = "${path.module}/out/intro.mp4"
}

output "intro_sha256" {
  value = videogen_video_file.intro.sha256
}
