# A presigned URL grants access to a private object while it lives: keep it out
# of state and plan. The URL is signed afresh on every run; the clip is made
# again only when reference_media_wo_version changes.
variable "mug_image_url" {
  type      = string
  ephemeral = true # Terraform 1.10 or later: never saved in a plan file
}

resource "videogen_video" "mug" {
  model                      = "videogen-1"
  prompt                     = "@image1 on a sunlit windowsill, slow dolly in"
  reference_images_wo        = [var.mug_image_url]
  reference_media_wo_version = 1
}
