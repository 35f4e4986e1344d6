"""Open questions: the learner writes or thinks an answer, reads the model answer and rates themselves."""

from apps.quiz.kinds.base import QuestionKind


class Open(QuestionKind):
    slug, label, order = "open", "Open (self-rated)", 0


KINDS = (Open(),)
