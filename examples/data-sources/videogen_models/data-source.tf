# The model IDs the configured API key may use.
data "videogen_models" "available" {}

output "videogen_model_ids" {
  value = data.videogen_models.available.ids
}
