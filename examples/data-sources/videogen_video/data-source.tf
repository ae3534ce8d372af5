# Reads a clip generated elsewhere (another workspace, a script, the console)
# by its task ID. Nothing is submitted, so nothing is billed.
data "videogen_video" "intro" {
  task_id = "task_abc123"
}

# Downloads that clip into this configuration's output directory. The file
# resource reads the task again before it downloads, so an expired signed URL
# is no problem, and state keeps only the path, size and SHA-256.
resource "videogen_video_file" "intro" {
  task_id = data.videogen_video.intro.task_id
  path    = "${path.module}/out/intro.mp4"
}

output "intro_sha256" {
  value = videogen_video_file.intro.sha256
}
