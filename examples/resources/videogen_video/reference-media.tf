# Reference media guide the generation. Images are numbered in list order:
# @image1 is the first element of reference_images, @image2 the second.
resource "videogen_video" "product_walkthrough" {
  model  = "videogen-2"
  prompt = "The mug from @image1 slides across the desk from @image2, camera follows it"
  reference_images = [
    "https://assets.example.com/brand/mug.png",
    "https://assets.example.com/brand/desk.png",
  ]
  reference_videos = ["https://assets.example.com/brand/camera-move.mp4"]
  reference_audios = ["https://assets.example.com/brand/jingle.mp3"]

  # Bump the revision to regenerate the clip on purpose.
  triggers_replace = {
    revision = "2"
  }
}
