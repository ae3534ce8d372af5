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

# A clip that Terraform does not wait for: the apply moves on as soon as it is
# submitted, and its file waits for it instead, up to the file's own timeout.
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
