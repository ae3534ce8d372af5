# Generated once, on create; a changed argument generates a new clip.
resource "videogen_video" "example" {
  model      = "videogen-2"
  prompt     = "A slow dolly shot over a sunlit desk with a steaming coffee cup and a notebook, soft morning light"
  seconds    = "8"
  ratio      = "16:9"
  resolution = "1080p"

  timeouts {
    create = "30m"
  }
}

output "teaser_url" {
  value = videogen_video.example.url
}
