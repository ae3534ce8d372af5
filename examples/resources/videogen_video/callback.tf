# Submit and return at once; the service POSTs the final task state to the
# webhook, and later refreshes record status and url.
resource "videogen_video" "overnight_batch" {
  model               = "videogen-2"
  prompt              = "A time-lapse of a city skyline from dusk to night"
  seconds             = "12"
  callback_url        = "https://hooks.example.com/videogen"
  wait_for_completion = false
}
