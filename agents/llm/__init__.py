"""The LLM room: model-backed policies on the official tool-chat loop.

* :mod:`vmb_agents.llm.chat`: rendering the env's chat for a model, parsing tool calls back, and
  :class:`~vmb_agents.llm.chat.ToolChatPolicy` (the loop over any
  :class:`~vmb_gym.memory.llm.ChatBackend`);
* :mod:`vmb_agents.llm.memory_prompt`: :class:`~vmb_agents.llm.memory_prompt.MemoryPrompter` (memory a
  policy retrieves itself and writes into its first prompt);
* :mod:`vmb_agents.llm.hf`: a local Hugging Face causal LM (a model, an adapter, a
  :class:`~vmb_agents.llm.hf.Decoding`); :mod:`vmb_agents.llm.openai_compat`: any OpenAI-compatible endpoint
  (standard library only);
* :mod:`vmb_agents.llm.guide`: :class:`~vmb_agents.llm.guide.RulesGuide`, the reader's optional hooks around a
  model's decoding (``hf:smollm2-vmb`` is guided, ``hf:smollm2-vmb-unguided`` is not);
* :mod:`vmb_agents.llm.trl_env`: VehicleMem-v0 as a TRL ``environment_factory`` environment.

Nothing heavy is imported here: torch and transformers load only inside :mod:`vmb_agents.llm.hf`.
"""
