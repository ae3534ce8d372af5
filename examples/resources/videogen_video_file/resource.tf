resource "videogen_video" "teaser" {
  model  = "videogen-1"
  prompt = "A paper boat drifting down a rain-soaked city street at dusk"
}

# Downloads the finished clip into the build output. State keeps its path,
# size and SHA-256, never its content; a runner without the file downloads it
# again from the same task, which generates (and bills) nothing new.
resource "videogen_video_file" "teaser" {
  task_id = videogen_video.teaser.task_id
  path    = "${path.module}/out/teaser.mp4"
}

output "teaser_sha256" {
  value = videogen_video_file.teaser.sha256
}
