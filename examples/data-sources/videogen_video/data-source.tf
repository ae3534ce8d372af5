# Reads a clip generated elsewhere (another workspace, a script, the console)
# by its task ID. Nothing is submitted, so nothing is billed.
data "videogen_video" "intro" {
  task_id = "task_abc123"
}

output "intro_url" {
  value = data.videogen_video.intro.url
}
