# A presigned URL, signed afresh on every run, kept out of state and plan; the
# clip is made again only when reference_media_wo_version changes.
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
