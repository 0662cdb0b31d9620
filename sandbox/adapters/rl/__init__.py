"""RL environments (the ``rl`` extra): the games as ``verifiers``
environments (``verifiers_env``, run by ``vf-eval``) and as an OpenEnv
environment (``openenv_env``: server and client). Both play one
:class:`~sandbox.adapters.rl.episode.Episode` per rollout; importing this
package imports neither library."""
