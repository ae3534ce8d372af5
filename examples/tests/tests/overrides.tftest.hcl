# override_resource gives one resource of the module values of its own, on
# top of the mock provider's defaults: here a task ID per clip, and a clip
# that failed. Nothing is submitted: the provider is only a mock.
mock_provider "videogen" {
  mock_resource "videogen_video" {
    defaults = {
      task_id = "task-mock"
      status  = "succeeded"
      url     = "https://clips.example.com/task-mock.mp4"
    }
  }
}

variables {
  clips = {
    hero = {
      model  = "videogen-2"
      prompt = "A slow aerial shot over a coastal town at sunrise"
    }
  }
}

run "downloads_the_clip_of_its_own_task" {
  override_resource {
    target = videogen_video.clip
    values = {
      task_id = "cgt-20250101-hero"
      status  = "succeeded"
    }
  }

  assert {
    condition     = videogen_video_file.clip["hero"].task_id == "cgt-20250101-hero"
    error_message = "The file should be downloaded from its own clip's task."
  }
}

# A failed clip is made first without its file: a precondition that fails
# during an apply is an error to OpenTofu's test runner, so the check is made
# by the plan that follows. A new clip, so that the override applies: in
# Terraform, a resource already in the test's state keeps the values it was
# created with.
run "makes_a_clip_that_fails" {
  variables {
    clips = {
      teaser = {
        model    = "videogen-1-fast"
        prompt   = "Coffee beans falling into a cup, studio lighting"
        download = false
      }
    }
  }

  override_resource {
    target = videogen_video.clip
    values = {
      status = "failed"
    }
  }

  assert {
    condition     = videogen_video.clip["teaser"].status == "failed" && length(videogen_video_file.clip) == 0
    error_message = "The failed clip should be in state, without a file."
  }
}

run "does_not_download_a_failed_clip" {
  command = plan

  variables {
    clips = {
      teaser = {
        model  = "videogen-1-fast"
        prompt = "Coffee beans falling into a cup, studio lighting"
      }
    }
  }

  # Again: OpenTofu refreshes a mocked resource with the mock's values.
  override_resource {
    target = videogen_video.clip
    values = {
      status = "failed"
    }
  }

  expect_failures = [videogen_video_file.clip]
}
