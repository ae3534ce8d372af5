# A clip is imported by the task ID the service returned when it was submitted.
terraform import videogen_video.example task_abc123
