# A vendor parameter that the provider does not type, sent inside metadata.
# first_frame_image asks for first/last-frame mode, so reference_images is left
# unset: the service does not take both.
resource "videogen_video" "from_first_frame" {
  model  = "videogen-2"
  prompt = "The still comes to life: the kite lifts off and drifts out of frame"

  extra_metadata = jsonencode({
    first_frame_image = "https://cdn.example.com/stills/kite.png"
    motion_strength   = 3
  })
}
