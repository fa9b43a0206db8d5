from devstack.cli import main

main()
