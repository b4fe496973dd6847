"""An airline customer-support bot: a LangGraph graph that knows nothing of Dialectica (``support_bot.graph``),
and what a researcher writes beside it to evaluate it (``support_bot.evaluation``)."""
