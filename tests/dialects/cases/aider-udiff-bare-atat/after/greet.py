def greet(name):
    print('hello', name)

def main():
    greet('bob')
